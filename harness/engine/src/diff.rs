//! Where two outcomes first differ, read from their `Debug` text.
//!
//! A failure's expected and actual outcomes are whole values (a column of
//! 10,000 timestamps, say); a person needs the first element that differs
//! and a few around it. The engine knows the outcomes only through `Debug`
//! and their canonical bytes, and `Debug` keeps the structure (field names,
//! list positions, enum variants), so both texts are parsed into a small
//! tree and walked together. Text that does not parse (a hand-written
//! `Debug`) falls back to the first differing character.

use std::fmt;

/// The first place two outcomes differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Where: `Ok.0.values[812]`, `Err.0`, `Ok.0.values.len()`; empty for
    /// the whole value.
    pub path: String,
    /// The expected value there (clipped).
    pub expected: String,
    /// The actual value there (clipped).
    pub got: String,
    /// For an element of a list: the expected and actual elements around
    /// it, as `[i..j]: a, b, c`.
    pub window: Option<(String, String)>,
    /// The kind of difference, for grouping failures by symptom: the path
    /// without list positions, and whether values, lengths or variants
    /// differ.
    pub symptom: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() {
            "the outcome"
        } else {
            &self.path
        };
        write!(
            f,
            "first difference at {at}: expected {}, got {}",
            self.expected, self.got
        )?;
        if let Some((expected, got)) = &self.window {
            write!(f, "\n  expected {expected}\n  got      {got}")?;
        }
        Ok(())
    }
}

/// Elements shown on each side of a differing list element.
const WINDOW: usize = 3;
/// Longest value quoted in a difference.
const QUOTE: usize = 80;

/// A parsed `Debug` value.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// A number, string, unit variant...
    Atom(String),
    /// `Name(..)`, `Name { .. }`, `[..]`, `(..)` or `{..}`: its name (empty
    /// for a bare list, tuple or map), its bracket, and its items (with
    /// their field names or map keys).
    Group {
        name: String,
        open: char,
        items: Vec<(Option<String>, Node)>,
    },
}

impl Node {
    fn text(&self) -> String {
        match self {
            Node::Atom(a) => a.clone(),
            Node::Group { name, open, items } => {
                let close = closing(*open);
                let inner: Vec<String> = items
                    .iter()
                    .map(|(key, node)| match key {
                        Some(k) => format!("{k}: {}", node.text()),
                        None => node.text(),
                    })
                    .collect();
                let space = if *open == '{' { " " } else { "" };
                let gap = if name.is_empty() || *open != '{' { "" } else { " " };
                format!("{name}{gap}{open}{space}{}{space}{close}", inner.join(", "))
            }
        }
    }

    /// The name a symptom uses: a group's name, or "value".
    fn kind(&self) -> String {
        match self {
            Node::Group { name, open, .. } if name.is_empty() => match open {
                '[' => "list".into(),
                '(' => "tuple".into(),
                _ => "map".into(),
            },
            Node::Group { name, .. } => name.clone(),
            Node::Atom(a) if a.chars().next().is_some_and(|c| c.is_ascii_uppercase()) => a.clone(),
            Node::Atom(_) => "value".into(),
        }
    }
}

fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn value(&mut self) -> Option<Node> {
        self.skip_space();
        match self.peek()? {
            b'"' | b'\'' => self.quoted(),
            open @ (b'[' | b'(' | b'{') => self.group(String::new(), open),
            _ => {
                let token = self.token()?;
                self.skip_space();
                match self.peek() {
                    Some(open @ (b'(' | b'{')) => self.group(token, open),
                    _ => Some(Node::Atom(token)),
                }
            }
        }
    }

    /// A bare token: up to a bracket, a comma, white space or a single colon.
    fn token(&mut self) -> Option<String> {
        let start = self.at;
        while let Some(c) = self.peek() {
            let single_colon = c == b':' && self.text.get(self.at + 1) != Some(&b':') && {
                // The second colon of `::` is not a separator either.
                self.at == 0 || self.text[self.at - 1] != b':'
            };
            if b",()[]{}".contains(&c) || c.is_ascii_whitespace() || single_colon {
                break;
            }
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.text[start..self.at]).into_owned())
    }

    fn quoted(&mut self) -> Option<Node> {
        let quote = self.peek()?;
        let start = self.at;
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                c if c == quote => {
                    self.at += 1;
                    break;
                }
                _ => self.at += 1,
            }
        }
        Some(Node::Atom(
            String::from_utf8_lossy(self.text.get(start..self.at)?).into_owned(),
        ))
    }

    fn group(&mut self, name: String, open: u8) -> Option<Node> {
        let close = closing(open as char) as u8;
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.peek()? == close {
                self.at += 1;
                break;
            }
            let first = self.value()?;
            self.skip_space();
            let item = if open == b'{' && self.peek() == Some(b':') {
                self.at += 1;
                (Some(first.text()), self.value()?)
            } else {
                (None, first)
            };
            items.push(item);
            self.skip_space();
            match self.peek()? {
                b',' => self.at += 1,
                c if c == close => {}
                _ => return None,
            }
        }
        Some(Node::Group {
            name,
            open: open as char,
            items,
        })
    }
}

fn parse(text: &str) -> Option<Node> {
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
    };
    let node = parser.value()?;
    parser.skip_space();
    (parser.at == text.len()).then_some(node)
}

fn clip(text: &str) -> String {
    if text.len() <= QUOTE {
        return text.to_string();
    }
    let mut end = QUOTE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// Path with list positions removed: `Ok.0.values[812]` -> `Ok.0.values[]`.
fn without_positions(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[]");
            }
            ']' => in_index = false,
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

fn window(items: &[(Option<String>, Node)], at: usize) -> String {
    let start = at.saturating_sub(WINDOW);
    let end = (at + WINDOW + 1).min(items.len());
    let shown: Vec<String> = items[start..end].iter().map(|(_, n)| clip(&n.text())).collect();
    format!("[{start}..{end}]: {}", shown.join(", "))
}

fn walk(expected: &Node, got: &Node, path: &mut String) -> Option<Difference> {
    let here = |path: &str, kind: String| Difference {
        path: path.to_string(),
        expected: clip(&expected.text()),
        got: clip(&got.text()),
        window: None,
        symptom: format!("{}: {kind}", display_path(&without_positions(path))),
    };
    match (expected, got) {
        (Node::Atom(e), Node::Atom(g)) if e == g => None,
        (
            Node::Group {
                name: en,
                open: eo,
                items: ei,
            },
            Node::Group {
                name: gn,
                open: go,
                items: gi,
            },
        ) if en == gn && eo == go => {
            for (k, ((ek, e), (gk, g))) in ei.iter().zip(gi).enumerate() {
                if ek != gk {
                    return Some(here(path, "fields differ".into()));
                }
                let mark = path.len();
                match (ek, eo) {
                    (Some(key), _) => {
                        if !path.is_empty() || !en.is_empty() {
                            path.push('.');
                        }
                        path.push_str(key);
                    }
                    (None, '[') => path.push_str(&format!("[{k}]")),
                    (None, _) => path.push_str(&format!(".{k}")),
                }
                if let Some(mut d) = walk(e, g, path) {
                    if *eo == '[' && ek.is_none() && d.window.is_none() {
                        d.window = Some((window(ei, k), window(gi, k)));
                    }
                    return Some(d);
                }
                path.truncate(mark);
            }
            if ei.len() != gi.len() {
                let mut d = here(path, "length".into());
                d.path.push_str(".len()");
                d.expected = ei.len().to_string();
                d.got = gi.len().to_string();
                let k = ei.len().min(gi.len());
                if *eo == '[' {
                    d.window = Some((window(ei, k), window(gi, k)));
                }
                return Some(d);
            }
            None
        }
        _ => {
            let (ek, gk) = (expected.kind(), got.kind());
            Some(here(
                path,
                if ek == gk {
                    format!("{ek} differs")
                } else {
                    format!("expected {ek}, got {gk}")
                },
            ))
        }
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() {
        "outcome"
    } else {
        path
    }
}

/// Where `got` first differs from `expected` (both `Debug` texts of
/// outcomes); `None` if they are equal. A `got` that is not an outcome (a
/// panic's or a failed subject's message) differs as a whole, its
/// symptom the message's first words.
pub fn first_difference(expected: &str, got: &str) -> Option<Difference> {
    if expected == got {
        return None;
    }
    if let (Some(e), Some(g)) = (parse(expected), parse(got)) {
        if e != g {
            // Outcomes are `Ok(..)` or `Err(..)`; paths start at the variant.
            let mut path = String::new();
            if let (Node::Group { name: en, .. }, Node::Group { name: gn, .. }) = (&e, &g) {
                if en == gn {
                    path.push_str(en);
                    if let (Node::Group { items: ei, .. }, Node::Group { items: gi, .. }) = (&e, &g) {
                        if ei.len() == 1 && gi.len() == 1 {
                            return walk(&ei[0].1, &gi[0].1, &mut path);
                        }
                    }
                    path.clear();
                }
            }
            return walk(&e, &g, &mut path);
        }
    }
    let at = expected
        .char_indices()
        .zip(got.chars())
        .find(|((_, a), b)| a != b)
        .map_or(expected.len().min(got.len()), |((k, _), _)| k);
    let symptom = if got.starts_with("PANIC") {
        "panic".to_string()
    } else if let Some(rest) = got.strip_prefix("SUBJECT FAILED: ") {
        let rest = rest.split_once("` ").map_or(rest, |(_, r)| r);
        format!(
            "subject failed: {}",
            rest.split([':', '(', ';']).next().unwrap_or(rest).trim()
        )
    } else if got.starts_with("(reference failed") {
        "reference panicked".to_string()
    } else {
        "text differs".to_string()
    };
    Some(Difference {
        path: format!("character {at}"),
        expected: clip(expected),
        got: clip(got),
        window: None,
        symptom,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_list_element_comes_with_its_neighbours() {
        let e = "Ok(Column { values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], consumed: 12 })";
        let g = "Ok(Column { values: [0, 1, 2, 3, 4, 5, -6, 7, 8, 9], consumed: 12 })";
        let d = first_difference(e, g).unwrap();
        assert_eq!(d.path, "Ok.values[6]");
        assert_eq!((d.expected.as_str(), d.got.as_str()), ("6", "-6"));
        assert_eq!(
            d.window,
            Some((
                "[3..10]: 3, 4, 5, 6, 7, 8, 9".into(),
                "[3..10]: 3, 4, 5, -6, 7, 8, 9".into()
            ))
        );
        assert_eq!(d.symptom, "Ok.values[]: value differs");
    }

    #[test]
    fn fields_lengths_and_variants_are_named() {
        let d = first_difference(
            "Ok(V { bytes: [1, 2], consumed: 4 })",
            "Ok(V { bytes: [1, 2], consumed: 3 })",
        )
        .unwrap();
        assert_eq!(
            (d.path.as_str(), d.symptom.as_str()),
            ("Ok.consumed", "Ok.consumed: value differs")
        );
        let d = first_difference("Ok([1, 2, 3])", "Ok([1, 2])").unwrap();
        assert_eq!(
            (d.path.as_str(), d.expected.as_str(), d.got.as_str()),
            ("Ok.len()", "3", "2")
        );
        assert_eq!(d.symptom, "Ok: length");
        assert_eq!(d.window, Some(("[0..3]: 1, 2, 3".into(), "[0..2]: 1, 2".into())));
        let d = first_difference("Err(Truncated { at: 5 })", "Err(BadDigit { at: 5 })").unwrap();
        assert_eq!(d.symptom, "Err: expected Truncated, got BadDigit");
        let d = first_difference("Err(Truncated { at: 5 })", "Err(Truncated { at: 4 })").unwrap();
        assert_eq!(
            (d.path.as_str(), d.symptom.as_str()),
            ("Err.at", "Err.at: value differs")
        );
        let d = first_difference("Ok([1])", "Err(Empty)").unwrap();
        assert_eq!(d.symptom, "outcome: expected Ok, got Err");
        assert_eq!((d.expected.as_str(), d.got.as_str()), ("Ok([1])", "Err(Empty)"));
    }

    #[test]
    fn strings_maps_floats_and_paths_parse() {
        let e = r#"Ok(Batch { rows: [{"a": Some(1.5), "b": None}], note: "x, y: \"z\"", kind: a::B })"#;
        let g = r#"Ok(Batch { rows: [{"a": Some(NaN), "b": None}], note: "x, y: \"z\"", kind: a::B })"#;
        let d = first_difference(e, g).unwrap();
        assert_eq!(d.path, r#"Ok.rows[0]."a".0"#);
        assert_eq!((d.expected.as_str(), d.got.as_str()), ("1.5", "NaN"));
        assert!(first_difference(e, e).is_none());
    }

    #[test]
    fn messages_that_are_not_outcomes_differ_as_a_whole() {
        let d = first_difference("Ok([1])", "PANIC: index out of bounds").unwrap();
        assert_eq!(d.symptom, "panic");
        let d = first_difference(
            "Ok([1])",
            "SUBJECT FAILED: subject `lazy` crash: closed its output before answering (exit status 1)",
        )
        .unwrap();
        assert_eq!(d.symptom, "subject failed: crash");
        let d = first_difference("Ok(x y)", "Ok(x z)").unwrap();
        assert_eq!((d.path.as_str(), d.symptom.as_str()), ("character 5", "text differs"));
    }

    #[test]
    fn long_values_are_clipped() {
        let long = format!("Ok([{}])", vec!["7"; 200].join(", "));
        let d = first_difference(&long, "Ok(())").unwrap();
        assert!(d.expected.len() <= QUOTE + 3, "{}", d.expected);
        assert!(d.expected.ends_with("..."));
    }
}
