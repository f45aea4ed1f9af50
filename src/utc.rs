//! A time in UTC to the minute, as the league's logs stamp their lines (`at`) and the pages show
//! it: `2026-11-29 18:28 UTC`. Held as a [`SystemTime`] until it is written; written and read
//! back as that text, so the logs of existing league folders still load.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A time in UTC, whole minutes since the Unix epoch (a time before it is the epoch): the
/// text it is written as says no more, so one read back is the one written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcTime(SystemTime);

/// A text that is not a time as [`UtcTime`] writes it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a time as `YYYY-MM-DD HH:MM UTC` (from 1970 on)")]
pub struct UtcTimeError {
    text: String,
}

impl UtcTime {
    /// The minute now.
    pub fn now() -> UtcTime {
        UtcTime::minute_of(SystemTime::now())
    }

    /// The minute `t` falls in.
    pub fn minute_of(t: SystemTime) -> UtcTime {
        let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        UtcTime(UNIX_EPOCH + Duration::from_secs(secs - secs % 60))
    }

    pub fn system_time(self) -> SystemTime {
        self.0
    }

    fn timestamp(self) -> jiff::Timestamp {
        jiff::Timestamp::try_from(self.0).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }
}

/// How the time is written: the calendar is the `jiff` crate's (no time-zone database: UTC
/// only).
const FORMAT: &str = "%Y-%m-%d %H:%M UTC";

impl fmt::Display for UtcTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.timestamp().strftime(FORMAT))
    }
}

impl FromStr for UtcTime {
    type Err = UtcTimeError;

    fn from_str(text: &str) -> Result<UtcTime, UtcTimeError> {
        let bad = || UtcTimeError {
            text: text.to_string(),
        };
        // Exactly the shape written (`strptime` alone would take `2023-4-1 9:05 UTC`).
        let shape = b"dddd-dd-dd dd:dd UTC";
        let fits = text.len() == shape.len()
            && text.bytes().zip(shape).all(|(c, s)| match s {
                b'd' => c.is_ascii_digit(),
                _ => c == *s,
            });
        if !fits {
            return Err(bad());
        }
        let civil = jiff::civil::DateTime::strptime(FORMAT, text).map_err(|_| bad())?;
        let t = jiff::tz::TimeZone::UTC
            .to_timestamp(civil)
            .map_err(|_| bad())?;
        let secs = u64::try_from(t.as_second()).map_err(|_| bad())?;
        Ok(UtcTime(UNIX_EPOCH + Duration::from_secs(secs)))
    }
}

impl serde::Serialize for UtcTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for UtcTime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<UtcTime, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn a_time_is_written_as_the_logs_wrote_it_to_the_minute() {
        assert_eq!(
            UtcTime::minute_of(at(1_700_000_000)).to_string(),
            "2023-11-14 22:13 UTC"
        );
        assert_eq!(
            UtcTime::minute_of(at(0)).to_string(),
            "1970-01-01 00:00 UTC"
        );
        // A leap day, and the last minute of a year.
        assert_eq!(
            UtcTime::minute_of(at(951_782_400 + 59)).to_string(),
            "2000-02-29 00:00 UTC"
        );
        assert_eq!(
            UtcTime::minute_of(at(1_704_067_199)).to_string(),
            "2023-12-31 23:59 UTC"
        );
        // Before the epoch: the epoch.
        let before = UNIX_EPOCH - Duration::from_secs(3600);
        assert_eq!(UtcTime::minute_of(before), UtcTime::minute_of(at(0)));
    }

    /// Every minute written reads back as itself, over four centuries of days (leap years,
    /// century years, month ends).
    #[test]
    fn every_time_written_reads_back_as_itself() {
        for day in (0..146_097 + 365).step_by(7) {
            for minute in [0, 1, 59, 60, 719, 1439] {
                let t = UtcTime::minute_of(at((day * 1440 + minute) * 60 + 17));
                let text = t.to_string();
                assert_eq!(text.parse::<UtcTime>(), Ok(t), "{text}");
                assert_eq!(t.system_time(), at((day * 1440 + minute) * 60));
            }
        }
    }

    #[test]
    fn a_text_that_is_no_such_time_is_refused() {
        for text in [
            "",
            "2023-11-14 22:13",
            "2023-11-14 22:13 utc",
            "2023-11-14T22:13 UTC",
            "2023-11-14 22:13:05 UTC",
            "2023-13-01 00:00 UTC",
            "2023-00-01 00:00 UTC",
            "2023-02-29 00:00 UTC",
            "2023-04-31 00:00 UTC",
            "2023-04-00 00:00 UTC",
            "2023-04-01 24:00 UTC",
            "2023-04-01 12:60 UTC",
            "1969-12-31 23:59 UTC",
            "２023-04-01 12:00 UTC",
        ] {
            assert!(text.parse::<UtcTime>().is_err(), "{text:?}");
        }
        assert!("2024-02-29 00:00 UTC".parse::<UtcTime>().is_ok());
    }

    /// A line of a league's log as it was written before the time was typed reads, and is
    /// written again the same.
    #[test]
    fn an_old_logs_time_reads_and_is_written_again_the_same() {
        #[derive(serde::Serialize, serde::Deserialize)]
        struct LogLine {
            game_id: u64,
            at: UtcTime,
        }
        let old = r#"{"game_id":7,"at":"2026-03-05 09:41 UTC"}"#;
        let line: LogLine = serde_json::from_str(old).unwrap();
        assert_eq!(line.at.to_string(), "2026-03-05 09:41 UTC");
        assert_eq!(serde_json::to_string(&line).unwrap(), old);
        assert!(serde_json::from_str::<LogLine>(r#"{"game_id":7,"at":"yesterday"}"#).is_err());
    }
}
