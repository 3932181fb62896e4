//! Numbers for the CLI's JSON (written with `serde_json`) as a reader expects them: a float
//! that holds a whole number written without `.0` (`4096000`, not `4096000.0`), and a
//! 128-bit count as a number while it fits in 64 bits.

use serde_json::Value;

/// `value` as a JSON number: an integer when it is a whole number that fits in 64 bits, else
/// a float (`null` for NaN or an infinity, which JSON cannot write).
pub fn float(value: f64) -> Value {
    // 2^64 is exactly representable; every whole float below it converts without loss.
    if value.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&value) {
        Value::from(value as u64)
    } else {
        Value::from(value)
    }
}

/// `value` as a JSON number while it fits in 64 bits, else as a decimal string.
pub fn wide(value: u128) -> Value {
    match u64::try_from(value) {
        Ok(v) => Value::from(v),
        Err(_) => Value::from(value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_floats_are_integers_and_wide_counts_strings() {
        assert_eq!(float(4_096_000.0).to_string(), "4096000");
        assert_eq!(float(69.5).to_string(), "69.5");
        assert_eq!(float(f64::NAN).to_string(), "null");
        assert_eq!(wide(1 << 22).to_string(), "4194304");
        assert_eq!(wide(1 << 64).to_string(), "\"18446744073709551616\"");
    }
}
