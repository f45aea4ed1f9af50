//! An error and its causes as one line for the terminal, each cause said once: library errors
//! often quote their cause in their own message (`cannot lock X: File exists (os error 17)`), and
//! printing the chain as well would say the OS error twice.

/// `error: cause: deeper cause`, leaving out every cause whose text the line already holds.
pub fn chain_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let said = c.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot lock {path}: {source}")]
    struct Quoting {
        path: String,
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("writing the results")]
    struct Silent {
        source: std::io::Error,
    }

    #[test]
    fn a_cause_is_said_once() {
        let io = || std::io::Error::from_raw_os_error(17);
        let e = Quoting {
            path: "/tmp/x/.lock".into(),
            source: io(),
        };
        let text = chain_text(&e);
        assert_eq!(text.matches("os error 17").count(), 1, "{text}");
        let e = Silent { source: io() };
        let text = chain_text(&e);
        assert!(text.starts_with("writing the results: "), "{text}");
        assert_eq!(text.matches("os error 17").count(), 1, "{text}");
    }
}
