//! Just enough JSON output for `--json`: objects of strings, integers, booleans, nulls and
//! nested objects and arrays. The
//! values are names, numbers and RFC 3339 stamps, so a dependency on serde_json would buy
//! nothing but build time.

use std::fmt::Write;

/// A JSON object under construction, written as one line.
#[derive(Debug, Default)]
pub struct Object {
    text: String,
}

impl Object {
    pub fn new() -> Object {
        Object::default()
    }

    fn key(&mut self, key: &str) {
        self.text.push(if self.text.is_empty() { '{' } else { ',' });
        push_string(&mut self.text, key);
        self.text.push(':');
    }

    /// A string member.
    pub fn string(mut self, key: &str, value: &str) -> Object {
        self.key(key);
        push_string(&mut self.text, value);
        self
    }

    /// A string member, or `null`.
    pub fn string_or_null(self, key: &str, value: Option<&str>) -> Object {
        match value {
            Some(value) => self.string(key, value),
            None => self.raw(key, "null"),
        }
    }

    /// A number member (integers: exact in any JSON parser that keeps 64-bit integers; IDs
    /// themselves go out as strings).
    pub fn number(mut self, key: &str, value: impl std::fmt::Display) -> Object {
        self.key(key);
        let _ = write!(self.text, "{value}");
        self
    }

    /// A number member, or `null`.
    pub fn number_or_null(self, key: &str, value: Option<impl std::fmt::Display>) -> Object {
        match value {
            Some(value) => self.number(key, value),
            None => self.raw(key, "null"),
        }
    }

    /// A `true`/`false` member.
    pub fn boolean(self, key: &str, value: bool) -> Object {
        self.raw(key, if value { "true" } else { "false" })
    }

    /// A member that is already JSON (a finished [`Object`], an [`array`]), or `null`.
    pub fn json_or_null(self, key: &str, value: Option<&str>) -> Object {
        self.raw(key, value.unwrap_or("null"))
    }

    fn raw(mut self, key: &str, value: &str) -> Object {
        self.key(key);
        self.text.push_str(value);
        self
    }

    /// The finished object.
    pub fn finish(mut self) -> String {
        if self.text.is_empty() {
            self.text.push('{');
        }
        self.text.push('}');
        self.text
    }
}

/// A JSON array of members that are already JSON.
pub fn array(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

/// Appends `value` as a JSON string literal.
fn push_string(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_escape_strings_and_keep_member_order() {
        let text = Object::new()
            .string("id", "12")
            .number("node", 3)
            .string_or_null("time", None)
            .string("odd", "a\"b\\c\n\u{1}é")
            .finish();
        assert_eq!(
            text,
            r#"{"id":"12","node":3,"time":null,"odd":"a\"b\\c\n\u0001é"}"#
        );
        assert_eq!(Object::new().finish(), "{}");
    }
}
