//! The JSON text of a replay page's steps, written as columns straight into buffers (one
//! array per field, `null` where a step has no such field), with no tree of values in between:
//! a page is written while games are played, so it is written cheaply.

use serde::Serialize;

/// Appends `v` as JSON to `out`.
pub fn put<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    serde_json::to_writer(out, v).expect("writing JSON to memory cannot fail");
}

/// Appends `"key":` (keys are plain ASCII names).
pub fn key(out: &mut Vec<u8>, k: &str) {
    out.push(b'"');
    out.extend_from_slice(k.as_bytes());
    out.extend_from_slice(b"\":");
}

/// The fields a step can have, one column each, in the order the page's JSON lists them
/// (by name, as the first pages were written).
#[derive(Clone, Copy)]
pub enum Col {
    Answer,
    Ch,
    Comment,
    CpuUs,
    Detail,
    Err,
    First,
    Input,
    Kind,
    Late,
    Move,
    Notes,
    Reason,
    Seat,
    Strikes,
    Turn,
    WallUs,
}

/// The columns' names, in [`Col`]'s order.
const COL_NAMES: [&str; 17] = [
    "answer", "ch", "comment", "cpu_us", "detail", "err", "first", "input", "kind", "late", "move",
    "notes", "reason", "seat", "strikes", "turn", "wall_us",
];

/// One column of the steps: a JSON array under way, `null` where a step has no such field.
#[derive(Default)]
struct Column {
    text: Vec<u8>,
    /// Values written (the nulls included).
    len: usize,
    /// Whether any step has this field (a column no step has is left out).
    used: bool,
}

impl Column {
    /// Starts step `step`'s value (after nulls for the steps before it that had none); the
    /// caller appends the value.
    fn at(&mut self, step: usize) -> &mut Vec<u8> {
        while self.len < step {
            self.comma();
            self.text.extend_from_slice(b"null");
        }
        self.comma();
        self.used = true;
        &mut self.text
    }

    fn comma(&mut self) {
        if self.len > 0 {
            self.text.push(b',');
        }
        self.len += 1;
    }
}

/// The steps as columns, filled one step at a time.
#[derive(Default)]
pub struct Columns {
    cols: [Column; COL_NAMES.len()],
    /// Steps written.
    pub steps: usize,
}

impl Columns {
    pub fn at(&mut self, c: Col) -> &mut Vec<u8> {
        self.cols[c as usize].at(self.steps)
    }

    pub fn put<T: Serialize + ?Sized>(&mut self, c: Col, v: &T) {
        put(self.at(c), v);
    }

    /// Appends `{"n":N,"cols":{...}}`.
    pub fn finish(mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"cols\":{");
        let mut any = false;
        for (name, col) in COL_NAMES.iter().zip(&mut self.cols) {
            if !col.used {
                continue;
            }
            while col.len < self.steps {
                col.comma();
                col.text.extend_from_slice(b"null");
            }
            if std::mem::replace(&mut any, true) {
                out.push(b',');
            }
            key(out, name);
            out.push(b'[');
            out.extend_from_slice(&col.text);
            out.push(b']');
        }
        out.extend_from_slice(b"},\"n\":");
        put(out, &self.steps);
        out.push(b'}');
    }
}
