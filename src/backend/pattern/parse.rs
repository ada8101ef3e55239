//! A parser for ECMA-262 regular expressions with the `u` flag (the dialect of `pattern`),
//! producing the small tree the engine choice and the translation work on. Anything this
//! parser does not know is an error, and the pattern then keeps the backtracking engine.

/// The largest code point.
pub const MAX: u32 = 0x10_ffff;

/// A set of code points: ranges plus Unicode property escapes kept by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Class {
    pub negated: bool,
    /// Inclusive ranges, sorted and merged.
    pub ranges: Vec<(u32, u32)>,
    /// `\p{…}` (false) and `\P{…}` (true) escapes, by their text between the braces.
    pub props: Vec<(bool, String)>,
}

impl Class {
    pub fn of(ranges: &[(u32, u32)]) -> Class {
        let mut c = Class::default();
        c.add(ranges);
        c
    }

    pub fn add(&mut self, ranges: &[(u32, u32)]) {
        self.ranges.extend_from_slice(ranges);
        self.ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(self.ranges.len());
        for &(a, b) in &self.ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.ranges = merged;
    }

    /// The complement of a list of sorted, merged ranges.
    pub fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut next = 0u32;
        for &(a, b) in ranges {
            if a > next {
                out.push((next, a - 1));
            }
            next = b + 1;
        }
        if next <= MAX {
            out.push((next, MAX));
        }
        out
    }
}

/// `\d`, `\w`, `\s` as ECMA-262 defines them (ASCII digits and word characters; the ECMA
/// whitespace and line terminator set).
pub const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
pub const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5a), (0x5f, 0x5f), (0x61, 0x7a)];
pub const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0d),
    (0x20, 0x20),
    (0xa0, 0xa0),
    (0x1680, 0x1680),
    (0x2000, 0x200a),
    (0x2028, 0x2029),
    (0x202f, 0x202f),
    (0x205f, 0x205f),
    (0x3000, 0x3000),
    (0xfeff, 0xfeff),
];
/// What `.` does not match.
pub const LINE: &[(u32, u32)] = &[(0x0a, 0x0a), (0x0d, 0x0d), (0x2028, 0x2029)];

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Empty,
    /// One code point, a class, `.`: anything that consumes exactly one character.
    Set(Class),
    /// `^`.
    Start,
    /// `$`.
    End,
    /// `\b` (true) or `\B` (false).
    WordBoundary(bool),
    /// A lookahead or lookbehind, with its body.
    Look(Box<Node>),
    /// `\1`, `\k<name>`.
    Backref,
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
}

pub type Result<T> = std::result::Result<T, String>;

struct Parser {
    s: Vec<char>,
    i: usize,
}

/// Parses an ECMA-262 `u`-flag pattern.
pub fn parse(source: &str) -> Result<Node> {
    let mut p = Parser {
        s: source.chars().collect(),
        i: 0,
    };
    let n = p.alt()?;
    if p.i != p.s.len() {
        return Err(format!("unexpected `{}`", p.s[p.i]));
    }
    Ok(n)
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn alt(&mut self) -> Result<Node> {
        let mut alts = vec![self.concat()?];
        while self.eat('|') {
            alts.push(self.concat()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(alts)
        })
    }

    fn concat(&mut self) -> Result<Node> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let quantifiable = !matches!(
                atom,
                Node::Start | Node::End | Node::WordBoundary(_) | Node::Look(_)
            );
            items.push(self.quantifier(atom, quantifiable)?);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let text: String = self.s[start..self.i].iter().collect();
        // Counts beyond u32 are treated as unbounded-size: the caller rejects them.
        text.parse().ok().or(if text.is_empty() {
            None
        } else {
            Some(u32::MAX)
        })
    }

    fn quantifier(&mut self, atom: Node, quantifiable: bool) -> Result<Node> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                let save = self.i;
                self.i += 1;
                let Some(min) = self.number() else {
                    return Err("lone `{`".into());
                };
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(self.number().ok_or("bad `{n,m}`")?)
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') {
                    self.i = save;
                    return Err("bad `{n,m}`".into());
                }
                if max.is_some_and(|m| m < min) {
                    return Err("`{n,m}` out of order".into());
                }
                (min, max)
            }
            _ => return Ok(atom),
        };
        self.i += 1;
        if !quantifiable {
            return Err("nothing to repeat".into());
        }
        self.eat('?');
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    fn atom(&mut self) -> Result<Node> {
        let c = self.peek().ok_or("unexpected end")?;
        self.i += 1;
        Ok(match c {
            '^' => Node::Start,
            '$' => Node::End,
            '.' => Node::Set(Class {
                negated: false,
                ranges: Class::complement(LINE),
                props: vec![],
            }),
            '(' => self.group()?,
            '[' => Node::Set(self.class()?),
            '\\' => self.escape()?,
            '*' | '+' | '?' | '{' | '}' | ']' => return Err(format!("lone `{c}`")),
            c => Node::Set(Class::of(&[(c as u32, c as u32)])),
        })
    }

    fn group(&mut self) -> Result<Node> {
        let look = if self.eat('?') {
            match self.peek() {
                Some(':') => {
                    self.i += 1;
                    false
                }
                Some('=') | Some('!') => {
                    self.i += 1;
                    true
                }
                Some('<') if matches!(self.s.get(self.i + 1), Some('=') | Some('!')) => {
                    self.i += 2;
                    true
                }
                Some('<') => {
                    self.i += 1;
                    while self.peek().is_some_and(|c| c != '>') {
                        self.i += 1;
                    }
                    if !self.eat('>') {
                        return Err("bad group name".into());
                    }
                    false
                }
                _ => return Err("unknown group".into()),
            }
        } else {
            false
        };
        let body = self.alt()?;
        if !self.eat(')') {
            return Err("missing `)`".into());
        }
        Ok(if look {
            Node::Look(Box::new(body))
        } else {
            body
        })
    }

    /// A `\` escape outside a class.
    fn escape(&mut self) -> Result<Node> {
        let e = self.peek().ok_or("trailing `\\`")?;
        match e {
            'b' | 'B' => {
                self.i += 1;
                Ok(Node::WordBoundary(e == 'b'))
            }
            '1'..='9' => {
                self.number();
                Ok(Node::Backref)
            }
            'k' => {
                self.i += 1;
                if !self.eat('<') {
                    return Err("bad `\\k`".into());
                }
                while self.peek().is_some_and(|c| c != '>') {
                    self.i += 1;
                }
                if !self.eat('>') {
                    return Err("bad `\\k`".into());
                }
                Ok(Node::Backref)
            }
            _ => Ok(Node::Set(self.class_escape(false)?)),
        }
    }

    /// The escapes allowed both in and out of classes, after the `\`.
    fn class_escape(&mut self, in_class: bool) -> Result<Class> {
        let e = self.peek().ok_or("trailing `\\`")?;
        self.i += 1;
        let one = |c: u32| Ok(Class::of(&[(c, c)]));
        let neg = |r: &[(u32, u32)]| {
            Ok(Class {
                negated: false,
                ranges: Class::complement(r),
                props: vec![],
            })
        };
        match e {
            'd' => Ok(Class::of(DIGIT)),
            'D' => neg(DIGIT),
            'w' => Ok(Class::of(WORD)),
            'W' => neg(WORD),
            's' => Ok(Class::of(SPACE)),
            'S' => neg(SPACE),
            't' => one(9),
            'n' => one(10),
            'v' => one(11),
            'f' => one(12),
            'r' => one(13),
            'b' if in_class => one(8),
            '-' if in_class => one('-' as u32),
            '0' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => one(0),
            'c' => match self.peek() {
                Some(c) if c.is_ascii_alphabetic() => {
                    self.i += 1;
                    one(c as u32 % 32)
                }
                _ => Err("bad `\\c`".into()),
            },
            'x' => {
                let v = self.hex(2).ok_or("bad `\\x`")?;
                one(v)
            }
            'u' => {
                let v = self.unicode_escape()?;
                if (0xd800..0xe000).contains(&v) {
                    // Matches only in UTF-16 strings: no translation has its meaning.
                    return Err("a lone surrogate".into());
                }
                one(v)
            }
            'p' | 'P' => {
                if !self.eat('{') {
                    return Err("bad `\\p`".into());
                }
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=')
                {
                    self.i += 1;
                }
                let name: String = self.s[start..self.i].iter().collect();
                if !self.eat('}') || name.is_empty() {
                    return Err("bad `\\p`".into());
                }
                Ok(Class {
                    negated: false,
                    ranges: vec![],
                    props: vec![(e == 'P', name)],
                })
            }
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' => one(e as u32),
            _ => Err(format!("unknown escape `\\{e}`")),
        }
    }

    fn hex(&mut self, n: usize) -> Option<u32> {
        let text: String = self.s.get(self.i..self.i + n)?.iter().collect();
        if !text.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        self.i += n;
        u32::from_str_radix(&text, 16).ok()
    }

    /// After `\u`: `XXXX`, a surrogate pair `XXXX\uXXXX`, or `{X…}`.
    fn unicode_escape(&mut self) -> Result<u32> {
        if self.eat('{') {
            let start = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.i += 1;
            }
            let text: String = self.s[start..self.i].iter().collect();
            let v = u32::from_str_radix(&text, 16).map_err(|_| "bad `\\u{…}`")?;
            if !self.eat('}') || v > MAX {
                return Err("bad `\\u{…}`".into());
            }
            return Ok(v);
        }
        let hi = self.hex(4).ok_or("bad `\\u`")?;
        if (0xd800..0xdc00).contains(&hi) && self.s.get(self.i) == Some(&'\\') {
            let save = self.i;
            self.i += 1;
            if self.eat('u') {
                if let Some(lo) = self.hex(4).filter(|lo| (0xdc00..0xe000).contains(lo)) {
                    return Ok(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00));
                }
            }
            self.i = save;
        }
        Ok(hi)
    }

    /// After `[`.
    fn class(&mut self) -> Result<Class> {
        let mut out = Class {
            negated: self.eat('^'),
            ..Class::default()
        };
        loop {
            let c = self.peek().ok_or("missing `]`")?;
            if c == ']' {
                self.i += 1;
                return Ok(out);
            }
            let lo = self.class_atom()?;
            if self.peek() == Some('-') && self.s.get(self.i + 1).is_some_and(|&c| c != ']') {
                self.i += 1;
                let hi = self.class_atom()?;
                match (single(&lo), single(&hi)) {
                    (Some(a), Some(b)) if a <= b => out.add(&[(a, b)]),
                    _ => return Err("bad class range".into()),
                }
            } else {
                out.add(&lo.ranges);
                out.props.extend(lo.props);
            }
        }
    }

    fn class_atom(&mut self) -> Result<Class> {
        let c = self.peek().ok_or("missing `]`")?;
        self.i += 1;
        if c == '\\' {
            self.class_escape(true)
        } else {
            Ok(Class::of(&[(c as u32, c as u32)]))
        }
    }
}

/// The code point of a one-character class.
fn single(c: &Class) -> Option<u32> {
    match (c.ranges.as_slice(), c.props.is_empty()) {
        ([(a, b)], true) if a == b => Some(*a),
        _ => None,
    }
}
