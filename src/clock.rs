//! The clock as the codec reads it: whole unix seconds from milliseconds.
//!
//! A clock that cannot be read is refused, never guessed: NaN cast to an
//! integer is 0 (the epoch) and -inf is `i64::MIN`, either of which makes
//! every expired token look fresh.

/// Largest clock, in ms, either way from the epoch: ECMAScript's time value
/// range (`new Date(8.64e15)`), so every clock a JS `Date` can hold is good.
pub const MAX_CLOCK_MS: f64 = 8.64e15;

/// `Math.floor(now_ms / 1000)`, or `None` when `now_ms` is not finite or
/// outside [`MAX_CLOCK_MS`].
pub fn unix_seconds(now_ms: f64) -> Option<i64> {
    if !now_ms.is_finite() || now_ms.abs() > MAX_CLOCK_MS {
        return None;
    }
    // In range, so the cast is exact: |s| <= 8.64e12 < 2^53.
    Some((now_ms / 1000.0).floor() as i64)
}

/// Seconds until a token with this `exp` stops opening: positive while
/// `floor(now) <= exp`, `<= 0` once expired (leeway aside). `None` for a
/// clock [`unix_seconds`] refuses.
pub fn seconds_left(exp: i64, now_ms: f64) -> Option<i64> {
    let now = unix_seconds(now_ms)?;
    Some(exp.saturating_add(1).saturating_sub(now))
}

/// The system clock in ms (native builds; in wasm the JS glue passes `now()`).
#[cfg(all(feature = "edge", not(target_arch = "wasm32")))]
pub fn system_now_ms() -> f64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_millis() as f64,
        // A system clock before 1970 is still a clock.
        Err(before) => -(before.duration().as_millis() as f64),
    }
}

/// Where a codec reads the time, in ms since the epoch: the system clock by
/// default, or a function of the caller's (a pinned clock in tests, a
/// server's own time source), as the JS package's `now` option.
#[cfg(feature = "edge")]
#[derive(Clone, Default)]
pub struct Clock(Option<std::sync::Arc<dyn Fn() -> f64 + Send + Sync>>);

#[cfg(feature = "edge")]
impl Clock {
    /// The system clock. In wasm there is none to read (the bindings pass
    /// the glue's `now()` to every call), so it reads NaN there, which seals
    /// nothing and opens nothing.
    pub fn system() -> Clock {
        Clock(None)
    }

    /// A clock that reads `now_ms()`.
    pub fn from_fn(now_ms: impl Fn() -> f64 + Send + Sync + 'static) -> Clock {
        Clock(Some(std::sync::Arc::new(now_ms)))
    }

    /// The time now, in ms.
    pub fn now_ms(&self) -> f64 {
        match &self.0 {
            Some(now_ms) => now_ms(),
            #[cfg(not(target_arch = "wasm32"))]
            None => system_now_ms(),
            #[cfg(target_arch = "wasm32")]
            None => f64::NAN,
        }
    }
}

#[cfg(feature = "edge")]
impl core::fmt::Debug for Clock {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Clock(fn)"
        } else {
            "Clock(system)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_milliseconds() {
        assert_eq!(unix_seconds(1_999.0), Some(1));
        assert_eq!(unix_seconds(-1.0), Some(-1));
        assert_eq!(unix_seconds(0.0), Some(0));
        assert_eq!(unix_seconds(MAX_CLOCK_MS), Some(8_640_000_000_000));
        assert_eq!(unix_seconds(-MAX_CLOCK_MS), Some(-8_640_000_000_000));
    }

    #[test]
    fn refuses_a_clock_it_cannot_read() {
        for bad in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
            MAX_CLOCK_MS + 1.0,
        ] {
            assert_eq!(unix_seconds(bad), None, "{bad}");
            assert_eq!(seconds_left(0, bad), None, "{bad}");
        }
    }

    #[test]
    fn seconds_left_is_positive_exactly_while_valid() {
        assert_eq!(seconds_left(100, 100_999.0), Some(1));
        assert_eq!(seconds_left(100, 101_000.0), Some(0));
        assert_eq!(seconds_left(100, 90_000.0), Some(11));
        assert_eq!(seconds_left(i64::MAX, 0.0), Some(i64::MAX));
    }

    #[cfg(all(feature = "edge", not(target_arch = "wasm32")))]
    #[test]
    fn a_clock_reads_its_function_or_the_system() {
        assert_eq!(Clock::from_fn(|| 1_234.5).now_ms(), 1_234.5);
        let before = system_now_ms();
        let now = Clock::default().now_ms();
        assert!(now >= before && now <= system_now_ms(), "{before} {now}");
    }
}
