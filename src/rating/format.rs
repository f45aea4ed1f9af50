//! Text for statistics in reports: signed two-decimal Elo, margins and percentages, with the
//! honest spellings `+inf`, `-inf` and `n/a` instead of NaN or a panic.
//!
//! Kept in one place so every report, table and log line prints the same numbers the same way.

/// Two-decimal signed text for an Elo value: `"+147.19"`, `"-3.20"`, `"0.00"` (no sign when it
/// rounds to zero), `"+inf"`, `"-inf"`, and `"n/a"` for NaN.
pub fn fmt_elo(x: f64) -> String {
    if x.is_nan() {
        return "n/a".to_string();
    }
    if x == f64::INFINITY {
        return "+inf".to_string();
    }
    if x == f64::NEG_INFINITY {
        return "-inf".to_string();
    }
    let text = format!("{:.2}", x.abs());
    if text == "0.00" {
        text
    } else if x > 0.0 {
        format!("+{text}")
    } else {
        format!("-{text}")
    }
}

/// [`fmt_elo`] of an optional value, `"n/a"` for `None`.
pub fn fmt_elo_opt(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), fmt_elo)
}

/// Unsigned two-decimal text for a margin: `"66.01"`, `"inf"`, `"n/a"` for NaN.
pub fn fmt_margin(x: f64) -> String {
    if x.is_nan() {
        "n/a".to_string()
    } else if x.is_infinite() {
        "inf".to_string()
    } else {
        format!("{:.2}", x.abs())
    }
}

/// A probability as a two-decimal percentage: `"97.38%"`, `"n/a"` for NaN.
pub fn fmt_percent(p: f64) -> String {
    if p.is_nan() {
        "n/a".to_string()
    } else {
        format!("{:.2}%", 100.0 * p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting() {
        assert_eq!(fmt_elo(147.194), "+147.19");
        assert_eq!(fmt_elo(-3.2), "-3.20");
        assert_eq!(fmt_elo(-0.004), "0.00");
        assert_eq!(fmt_elo(f64::NAN), "n/a");
        assert_eq!(fmt_margin(f64::INFINITY), "inf");
        assert_eq!(fmt_percent(0.97379), "97.38%");
    }
}
