//! Compile failures of official CodinGame games that are known, and what to do about them. A
//! game is never patched silently (the game that plays must be the one its authors published):
//! the error says what is known and the user decides.

/// A known failure: what a compiler's output holds when it is this one, and what to say.
struct Quirk {
    /// Every one of these is in the output.
    marks: &'static [&'static str],
    /// The explanation, appended to the error.
    text: &'static str,
}

const QUIRKS: &[Quirk] = &[Quirk {
    marks: &[
        "Game.java",
        "Optional<Object> cannot be converted to Optional<Spell>",
    ],
    text: "known quirk: Fall Challenge 2020's Game.java does not compile with javac 17: the \
           Stream.of(...) of four streams flattened with flatMap(Function.identity()) is \
           inferred as a stream of Object; it compiles once that flatMap is given its type \
           with a type witness: .<Spell>flatMap(Function.identity()). arbiter never changes a \
           game's source: make that change in your clone of the game, then run again",
}];

/// What is known of a failed compile whose output is `output`: a paragraph to append to the
/// error (starting with a blank line), or nothing.
pub fn explain(output: &str) -> String {
    QUIRKS
        .iter()
        .filter(|q| q.marks.iter().all(|m| output.contains(m)))
        .map(|q| format!("\n\n{}", q.text))
        .collect()
}
