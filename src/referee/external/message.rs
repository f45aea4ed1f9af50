//! The lines an external referee writes on its stdout (the cg-brutaltester protocol), read into
//! messages, and its `###End` ranking turned into ranks.

/// Most answer lines a referee may ask of one player in one turn.
pub const MAX_LINES: usize = 100;

/// One control line of the referee.
#[derive(Debug, PartialEq, Eq)]
pub enum Message {
    /// `###Input k`: the lines up to the next `###` line go to player k.
    Input(usize),
    /// `###Output k n`: read n lines from player k.
    Output(usize, usize),
    /// `###End` and the ranking: groups best first, players of one group tied.
    End(Vec<Vec<usize>>),
    /// `###Error ...`: a note about a player (real referees write it on stderr).
    Error,
}

/// Reads one line that starts with `###`; `Err` says what is wrong with it.
pub fn parse(line: &str) -> Result<Message, String> {
    let mut words = line.split_whitespace();
    let head = words.next().unwrap_or("");
    let number = |w: Option<&str>, what: &str| -> Result<usize, String> {
        let w = w.ok_or_else(|| format!("no {what}"))?;
        w.parse::<usize>()
            .map_err(|_| format!("{what} \"{w}\" is not a number"))
    };
    let msg = match head {
        "###Input" => Message::Input(number(words.next(), "player id")?),
        "###Output" => {
            let k = number(words.next(), "player id")?;
            let n = number(words.next(), "line count")?;
            if n == 0 || n > MAX_LINES {
                return Err(format!("asks for {n} lines (1 to {MAX_LINES} allowed)"));
            }
            Message::Output(k, n)
        }
        "###End" => {
            let mut groups = Vec::new();
            for group in words.by_ref() {
                let ids = group
                    .chars()
                    .map(|c| {
                        c.to_digit(10).map(|d| d as usize).ok_or_else(|| {
                            format!("ranking group \"{group}\" is not player digits")
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                groups.push(ids);
            }
            if groups.is_empty() {
                return Err("###End without a ranking".into());
            }
            return Ok(Message::End(groups));
        }
        "###Error" => return Ok(Message::Error),
        _ => return Err("not a message of the protocol".into()),
    };
    match words.next() {
        None => Ok(msg),
        Some(extra) => Err(format!("unexpected \"{extra}\" at its end")),
    }
}

/// The ranks (0 = first, equal = tie) of `seats` players from an `###End` ranking. Each player
/// must be named exactly once: a referee that plays fewer players than it was started with
/// (some ignore `###Start P`) would otherwise rank a player who never played.
pub fn ranks(groups: &[Vec<usize>], seats: usize) -> Result<Vec<u8>, String> {
    let mut ranks: Vec<Option<u8>> = vec![None; seats];
    let mut ahead = 0u8;
    for group in groups {
        for &p in group {
            match ranks.get_mut(p) {
                None => return Err(format!("ranks player {p}, but the game has {seats}")),
                Some(Some(_)) => return Err(format!("ranks player {p} twice")),
                Some(slot) => *slot = Some(ahead),
            }
        }
        ahead += group.len() as u8;
    }
    let missing: Vec<String> = (0..seats)
        .filter(|&p| ranks[p].is_none())
        .map(|p| p.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "does not rank player {} of {seats} (a referee that plays fewer players than {opt} \
             says: try {opt} {})",
            missing.join(", "),
            seats - missing.len(),
            opt = crate::options::Opt::Seats
        ));
    }
    Ok(ranks.into_iter().map(|r| r.unwrap_or(ahead)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_parse_and_malformed_ones_say_why() {
        assert_eq!(parse("###Input 1"), Ok(Message::Input(1)));
        assert_eq!(parse("###Output 0 2"), Ok(Message::Output(0, 2)));
        assert_eq!(
            parse("###End 2 01 3"),
            Ok(Message::End(vec![vec![2], vec![0, 1], vec![3]]))
        );
        assert_eq!(parse("###Error 0 bad move"), Ok(Message::Error));
        assert!(parse("###Output 0").unwrap_err().contains("line count"));
        assert!(parse("###Output 0 0").unwrap_err().contains("0 lines"));
        assert!(parse("###Input x").unwrap_err().contains("not a number"));
        assert!(parse("###End").unwrap_err().contains("without a ranking"));
        assert!(parse("###End 0 a").unwrap_err().contains("\"a\""));
        assert!(parse("###Start 2").is_err());
        assert!(parse("###Input 0 7").unwrap_err().contains("\"7\""));
    }

    #[test]
    fn rankings_become_ranks_with_ties_and_must_name_every_player() {
        assert_eq!(ranks(&[vec![1], vec![0]], 2), Ok(vec![1, 0]));
        assert_eq!(ranks(&[vec![0, 1]], 2), Ok(vec![0, 0]));
        assert_eq!(
            ranks(&[vec![2], vec![0, 1], vec![3]], 4),
            Ok(vec![1, 1, 0, 3])
        );
        let err = ranks(&[vec![1], vec![0]], 3).unwrap_err();
        assert!(
            err.contains("does not rank player 2 of 3")
                && err.contains(&format!("{} 2", crate::options::Opt::Seats)),
            "{err}"
        );
        assert!(ranks(&[vec![2]], 2).unwrap_err().contains("has 2"));
        assert!(ranks(&[vec![0], vec![0]], 2).unwrap_err().contains("twice"));
    }
}
