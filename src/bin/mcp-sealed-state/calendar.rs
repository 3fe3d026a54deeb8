//! An `exp` as a date. Any i64 is a valid `exp` in a token (the CLI itself
//! seals one past the year 9999 with a large `--ttl`), but RFC 3339 ends there.

/// 9999-12-31T23:59:59Z, the last second RFC 3339 (and humantime) can write.
const LAST_RFC3339_SECOND: u64 = 253_402_300_799;

/// The RFC 3339 date of `exp` (unix seconds), or which side of the range it is on.
pub fn date_of(exp: i64) -> String {
    let Ok(seconds) = u64::try_from(exp) else {
        return "before 1970".to_string();
    };
    if seconds > LAST_RFC3339_SECOND {
        return "beyond the year 9999".to_string();
    }
    std::time::UNIX_EPOCH
        .checked_add(std::time::Duration::from_secs(seconds))
        .map_or_else(
            || "beyond this system's clock".to_string(),
            |t| humantime::format_rfc3339_seconds(t).to_string(),
        )
}

#[cfg(test)]
mod tests {
    use super::date_of;

    #[test]
    fn every_exp_has_a_date_or_a_side() {
        assert_eq!(date_of(0), "1970-01-01T00:00:00Z");
        assert_eq!(date_of(253_402_300_799), "9999-12-31T23:59:59Z");
        assert_eq!(date_of(253_402_300_800), "beyond the year 9999");
        assert_eq!(date_of(i64::MAX), "beyond the year 9999");
        assert_eq!(date_of(-1), "before 1970");
        assert_eq!(date_of(i64::MIN), "before 1970");
    }
}
