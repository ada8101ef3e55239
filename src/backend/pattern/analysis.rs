//! Whether a backtracking engine runs a pattern in linear time on every input.
//!
//! The pattern becomes its position (Glushkov) automaton; a search that may start anywhere is
//! the pattern behind a `[^]*` loop. A backtracking matcher takes exponential time on some
//! input exactly when that automaton is exponentially ambiguous (EDA: a state with two
//! distinct loops on the same word) and polynomial time when it is infinitely ambiguous (IDA:
//! states `p != q` with `p -v-> p`, `p -v-> q`, `q -v-> q`) (Weideman et al., 2016). The check
//! is conservative: assertions and lookarounds count as empty, a backreference as `[^]*`, a
//! `\p{…}` class as any character, and counted repetitions beyond a small size as loops, so
//! every ambiguity of the real pattern is found (and maybe some more).

use std::collections::VecDeque;

use super::parse::{Class, Node, MAX};

/// Positions beyond this make the pattern count as unsafe without further analysis.
const MAX_POSITIONS: usize = 400;
/// Work (visited product states) beyond this makes the pattern count as unsafe.
const MAX_WORK: usize = 4_000_000;
/// Counted repetitions are expanded when the copies stay within this many positions.
const MAX_EXPANSION: usize = 24;

struct Automaton {
    /// The code points each position reads (position 0 is the start state and reads none).
    labels: Vec<Vec<(u32, u32)>>,
    /// Successors of each state.
    next: Vec<Vec<usize>>,
    /// Edges the construction added more than once: two parses of the same step.
    multi: Vec<(usize, usize)>,
}

struct Frag {
    nullable: bool,
    first: Vec<usize>,
    last: Vec<usize>,
}

impl Automaton {
    fn position(&mut self, label: Vec<(u32, u32)>) -> usize {
        self.labels.push(label);
        self.next.push(Vec::new());
        self.labels.len() - 1
    }

    fn link(&mut self, from: &[usize], to: &[usize]) {
        for &f in from {
            for &t in to {
                if self.next[f].contains(&t) {
                    self.multi.push((f, t));
                } else {
                    self.next[f].push(t);
                }
            }
        }
    }

    fn too_big(&self) -> bool {
        self.labels.len() > MAX_POSITIONS
    }

    fn build(&mut self, n: &Node) -> Frag {
        if self.too_big() {
            return empty();
        }
        match n {
            Node::Empty | Node::Start | Node::End | Node::WordBoundary(_) | Node::Look(_) => {
                empty()
            }
            Node::Set(c) => {
                let p = self.position(label(c));
                Frag {
                    nullable: false,
                    first: vec![p],
                    last: vec![p],
                }
            }
            Node::Backref => {
                let p = self.position(vec![(0, MAX)]);
                self.link(&[p], &[p]);
                Frag {
                    nullable: true,
                    first: vec![p],
                    last: vec![p],
                }
            }
            Node::Concat(items) => {
                let mut acc = empty();
                for item in items {
                    let f = self.build(item);
                    acc = self.seq(acc, f);
                }
                acc
            }
            Node::Alt(alts) => {
                let mut acc = Frag {
                    nullable: false,
                    first: vec![],
                    last: vec![],
                };
                for a in alts {
                    let f = self.build(a);
                    acc.nullable |= f.nullable;
                    acc.first.extend(f.first);
                    acc.last.extend(f.last);
                }
                acc
            }
            Node::Repeat { node, min, max } => self.repeat(node, *min, *max),
        }
    }

    fn seq(&mut self, a: Frag, b: Frag) -> Frag {
        self.link(&a.last, &b.first);
        let mut first = a.first;
        if a.nullable {
            first.extend(&b.first);
        }
        let mut last = b.last;
        if b.nullable {
            last.extend(&a.last);
        }
        Frag {
            nullable: a.nullable && b.nullable,
            first,
            last,
        }
    }

    fn looped(&mut self, node: &Node, min: u32) -> Frag {
        let f = self.build(node);
        self.link(&f.last, &f.first);
        Frag {
            nullable: min == 0 || f.nullable,
            ..f
        }
    }

    fn repeat(&mut self, node: &Node, min: u32, max: Option<u32>) -> Frag {
        let size = positions(node);
        match max {
            Some(0) => empty(),
            Some(max) if (max as usize).saturating_mul(size) <= MAX_EXPANSION => {
                // `x{2,4}` as `xx(x(x)?)?`.
                let mut acc = empty();
                for _ in 0..min {
                    let f = self.build(node);
                    acc = self.seq(acc, f);
                }
                let mut opt = empty();
                for _ in min..max {
                    let f = self.build(node);
                    let inner = self.seq(f, opt);
                    opt = Frag {
                        nullable: true,
                        ..inner
                    };
                }
                self.seq(acc, opt)
            }
            Some(1) => {
                let f = self.build(node);
                Frag {
                    nullable: min == 0 || f.nullable,
                    ..f
                }
            }
            _ => self.looped(node, min),
        }
    }
}

fn empty() -> Frag {
    Frag {
        nullable: true,
        first: vec![],
        last: vec![],
    }
}

/// The number of positions of one copy of `n`.
fn positions(n: &Node) -> usize {
    match n {
        Node::Set(_) | Node::Backref => 1,
        Node::Concat(v) | Node::Alt(v) => v.iter().map(positions).sum(),
        Node::Repeat { node, max, .. } => {
            let k = positions(node);
            match max {
                Some(m) if (*m as usize).saturating_mul(k) <= MAX_EXPANSION => *m as usize * k,
                _ => k,
            }
        }
        _ => 0,
    }
}

/// The code points a class matches, with `\p{…}` taken as anything.
fn label(c: &Class) -> Vec<(u32, u32)> {
    if !c.props.is_empty() {
        vec![(0, MAX)]
    } else if c.negated {
        Class::complement(&c.ranges)
    } else {
        c.ranges.clone()
    }
}

fn overlap(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].1 < b[j].0 {
            i += 1;
        } else if b[j].1 < a[i].0 {
            j += 1;
        } else {
            return true;
        }
    }
    false
}

/// Whether every top-level alternative starts with `^`.
fn anchored(n: &Node) -> bool {
    match n {
        Node::Start => true,
        Node::Concat(items) => items.first().is_some_and(anchored),
        Node::Alt(alts) => alts.iter().all(anchored),
        _ => false,
    }
}

/// True when a backtracking search for `n` takes time linear in the input on every input.
pub fn backtracking_is_linear(n: &Node) -> bool {
    let anchored = anchored(n);
    looks_are_linear(n, anchored, true) && linear(&strip_tail(n), anchored)
}

/// The longest string `n` matches, `None` when unbounded.
fn max_len(n: &Node) -> Option<u64> {
    match n {
        Node::Set(_) => Some(1),
        Node::Backref => None,
        Node::Concat(v) => v
            .iter()
            .try_fold(0u64, |acc, x| Some(acc.saturating_add(max_len(x)?))),
        Node::Alt(v) => v.iter().try_fold(0u64, |acc, x| Some(acc.max(max_len(x)?))),
        Node::Repeat { node, max, .. } => {
            let k = max_len(node)?;
            if k == 0 {
                Some(0)
            } else {
                Some(k.saturating_mul(u64::from((*max)?)))
            }
        }
        _ => Some(0),
    }
}

/// Every lookaround body must be linear on its own, and one that can be evaluated at many
/// positions (anywhere but right after a leading `^`) must also be of bounded length.
fn looks_are_linear(n: &Node, anchored: bool, at_start: bool) -> bool {
    match n {
        Node::Look(body) => {
            (at_start && anchored || max_len(body).is_some())
                && looks_are_linear(body, true, true)
                && linear(body, true)
        }
        Node::Concat(items) => {
            let mut start = at_start;
            items.iter().all(|i| {
                let ok = looks_are_linear(i, anchored, start);
                start &= matches!(i, Node::Start | Node::Look(_));
                ok
            })
        }
        Node::Alt(alts) => alts.iter().all(|a| looks_are_linear(a, anchored, at_start)),
        Node::Repeat { node, .. } => looks_are_linear(node, anchored, false),
        _ => true,
    }
}

/// Without `$` after it, a trailing repetition matches as soon as its required copies do:
/// `P X{m,n}` finds a match exactly when `P X{m}` does, and once `P X{m}` matched, a greedy
/// engine tries the optional copies once and cannot fail. So the search costs what the search
/// for `P X{m}` costs plus the attempts of the optional copies, each of bounded length.
fn strip_tail(n: &Node) -> Node {
    match n {
        Node::Concat(items) if !items.is_empty() => {
            let mut items = items.clone();
            let last = items.pop().unwrap_or(Node::Empty);
            items.push(strip_tail(&last));
            Node::Concat(items)
        }
        Node::Alt(alts) => Node::Alt(alts.iter().map(strip_tail).collect()),
        Node::Repeat { node, min, max }
            if *max != Some(*min) && max_len(node).is_some() && linear(node, true) =>
        {
            let required = Node::Repeat {
                node: node.clone(),
                min: *min,
                max: Some(*min),
            };
            if *min == 1 {
                strip_tail(node)
            } else {
                required
            }
        }
        _ => n.clone(),
    }
}

/// The ambiguity check of a pattern searched from every position, or (`anchored`) only from
/// the start of the input.
fn linear(n: &Node, anchored: bool) -> bool {
    let mut a = Automaton {
        labels: vec![vec![]],
        next: vec![vec![]],
        multi: vec![],
    };
    let body = if anchored {
        n.clone()
    } else {
        let any = Node::Set(Class::of(&[(0, MAX)]));
        let prefix = Node::Repeat {
            node: Box::new(any),
            min: 0,
            max: None,
        };
        Node::Concat(vec![prefix, n.clone()])
    };
    let f = a.build(&body);
    if a.too_big() {
        return false;
    }
    a.link(&[0], &f.first);
    // Overlap of two positions' labels, computed once.
    let k = a.labels.len();
    let mut meet = vec![false; k * k];
    for p in 1..k {
        for q in p..k {
            let m = overlap(&a.labels[p], &a.labels[q]);
            meet[p * k + q] = m;
            meet[q * k + p] = m;
        }
    }
    let mut work = 0usize;
    !parallel_cycle(&a)
        && !exponential(&a, &meet, &mut work)
        && !polynomial(&a, &meet, &mut work)
        && work <= MAX_WORK
}

/// EDA through an edge built twice that lies on a cycle: `(a+)+` has one position, whose loop
/// comes from both repetitions.
fn parallel_cycle(a: &Automaton) -> bool {
    a.multi.iter().any(|&(p, q)| {
        let mut seen = vec![false; a.labels.len()];
        let mut todo = vec![q];
        while let Some(s) = todo.pop() {
            if s == p {
                return true;
            }
            if !std::mem::replace(&mut seen[s], true) {
                todo.extend(&a.next[s]);
            }
        }
        false
    })
}

/// Pair successors: both states read one same character.
fn pair_next(a: &Automaton, meet: &[bool], (p, q): (usize, usize), out: &mut Vec<(usize, usize)>) {
    let k = a.labels.len();
    out.clear();
    for &p2 in &a.next[p] {
        for &q2 in &a.next[q] {
            if meet[p2 * k + q2] {
                out.push((p2, q2));
            }
        }
    }
}

/// A pair of automaton states.
type Pair = (usize, usize);
/// A frame of the iterative Tarjan walk: a pair, its successors, the next one to visit.
type Frame = (Pair, Vec<Pair>, usize);

/// EDA: a strongly connected component of the pair automaton holding a diagonal pair and
/// another pair.
fn exponential(a: &Automaton, meet: &[bool], work: &mut usize) -> bool {
    let k = a.labels.len();
    // Strongly connected components of the pairs reachable from (0, 0) (Tarjan, iterative).
    let idx = |(p, q): (usize, usize)| p * k + q;
    let mut index = vec![usize::MAX; k * k];
    let mut low = vec![0usize; k * k];
    let mut on_stack = vec![false; k * k];
    let mut stack = Vec::new();
    let mut counter = 0;
    let mut buf = Vec::new();
    // Call frames of the iterative walk: (pair, its successors, next successor to visit).
    let mut call: Vec<Frame> = Vec::new();
    let root = (0, 0);
    index[0] = 0;
    low[0] = 0;
    counter += 1;
    stack.push(root);
    on_stack[0] = true;
    pair_next(a, meet, root, &mut buf);
    call.push((root, buf.clone(), 0));
    while let Some((v, succ, i)) = call.last_mut() {
        *work += 1;
        if *work > MAX_WORK {
            return true;
        }
        let v = *v;
        if *i < succ.len() {
            let w = succ[*i];
            *i += 1;
            if index[idx(w)] == usize::MAX {
                index[idx(w)] = counter;
                low[idx(w)] = counter;
                counter += 1;
                stack.push(w);
                on_stack[idx(w)] = true;
                pair_next(a, meet, w, &mut buf);
                call.push((w, buf.clone(), 0));
            } else if on_stack[idx(w)] {
                low[idx(v)] = low[idx(v)].min(index[idx(w)]);
            }
            continue;
        }
        call.pop();
        if let Some((u, _, _)) = call.last() {
            low[idx(*u)] = low[idx(*u)].min(low[idx(v)]);
        }
        if low[idx(v)] == index[idx(v)] {
            let mut diagonal = false;
            let mut other = false;
            let mut size = 0;
            while let Some(w) = stack.pop() {
                on_stack[idx(w)] = false;
                size += 1;
                diagonal |= w.0 == w.1;
                other |= w.0 != w.1;
                if w == v {
                    break;
                }
            }
            if size > 1 && diagonal && other {
                return true;
            }
        }
    }
    false
}

/// IDA: `p != q` with one word `v` leading `p` to `p`, `p` to `q` and `q` to `q`: in the triple
/// automaton, `(p, p, q)` reaches `(p, q, q)`.
fn polynomial(a: &Automaton, meet: &[bool], work: &mut usize) -> bool {
    let k = a.labels.len();
    // Cheap necessary conditions first: p and q each on a cycle, q reachable from p.
    let reach = |from: usize| {
        let mut seen = vec![false; k];
        let mut todo: Vec<usize> = a.next[from].clone();
        while let Some(s) = todo.pop() {
            if !seen[s] {
                seen[s] = true;
                todo.extend(&a.next[s]);
            }
        }
        seen
    };
    let reaches: Vec<Vec<bool>> = (0..k).map(reach).collect();
    let cyclic: Vec<bool> = (0..k).map(|s| reaches[s][s]).collect();
    let mut seen = std::collections::HashSet::new();
    for p in 0..k {
        for q in 0..k {
            if p == q || !cyclic[p] || !cyclic[q] || !reaches[p][q] {
                continue;
            }
            if triple_reaches(a, meet, (p, p, q), (p, q, q), &mut seen, work) {
                return true;
            }
            if *work > MAX_WORK {
                return true;
            }
        }
    }
    false
}

fn triple_reaches(
    a: &Automaton,
    meet: &[bool],
    from: (usize, usize, usize),
    to: (usize, usize, usize),
    seen: &mut std::collections::HashSet<(usize, usize, usize)>,
    work: &mut usize,
) -> bool {
    let k = a.labels.len();
    seen.clear();
    let mut todo = VecDeque::from([from]);
    while let Some((x, y, z)) = todo.pop_front() {
        *work += 1;
        if *work > MAX_WORK {
            return true;
        }
        for &x2 in &a.next[x] {
            for &y2 in &a.next[y] {
                if !meet[x2 * k + y2] {
                    continue;
                }
                for &z2 in &a.next[z] {
                    if !meet[x2 * k + z2] || !meet[y2 * k + z2] {
                        continue;
                    }
                    // Three ranges lists meeting pairwise may still share no point.
                    if !common(&a.labels[x2], &a.labels[y2], &a.labels[z2]) {
                        continue;
                    }
                    let t = (x2, y2, z2);
                    if t == to {
                        return true;
                    }
                    if seen.insert(t) {
                        todo.push_back(t);
                    }
                }
            }
        }
    }
    false
}

/// Whether three range lists share a code point.
fn common(a: &[(u32, u32)], b: &[(u32, u32)], c: &[(u32, u32)]) -> bool {
    let mut ab = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo <= hi {
            ab.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    overlap(&ab, c)
}
