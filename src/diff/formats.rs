//! Random strings of each asserted format, for the instance generator: varied values (dates,
//! addresses, identifiers built from random parts), with a few fixed examples among them. A value
//! a format check rejects (the 30th of February) is dropped by the generator's validity filter.

use rand::rngs::SmallRng;
use rand::RngExt;

use crate::ir::Format;

const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &[u8] = b"0123456789abcdefABCDEF";

fn pick(rng: &mut SmallRng, set: &[u8], n: usize) -> String {
    (0..n)
        .map(|_| set[rng.random_range(0..set.len())] as char)
        .collect()
}

fn label(rng: &mut SmallRng) -> String {
    let n = rng.random_range(1..=8);
    let mut s = pick(rng, &ALNUM[..26], 1);
    s.push_str(&pick(rng, ALNUM, n - 1));
    s
}

fn host(rng: &mut SmallRng) -> String {
    let n = rng.random_range(1..=3);
    let mut parts: Vec<String> = (0..n).map(|_| label(rng)).collect();
    parts.push(["com", "org", "net", "example", "io"][rng.random_range(0..5)].to_string());
    parts.join(".")
}

fn path(rng: &mut SmallRng) -> String {
    let n = rng.random_range(0..=3);
    (0..n).map(|_| format!("/{}", label(rng))).collect()
}

fn offset(rng: &mut SmallRng) -> String {
    match rng.random_range(0..3) {
        0 => "Z".to_string(),
        1 => format!(
            "+{:02}:{:02}",
            rng.random_range(0..14),
            15 * rng.random_range(0..4)
        ),
        _ => format!(
            "-{:02}:{:02}",
            rng.random_range(0..12),
            30 * rng.random_range(0..2)
        ),
    }
}

fn date(rng: &mut SmallRng) -> String {
    format!(
        "{:04}-{:02}-{:02}",
        rng.random_range(1900..2100),
        rng.random_range(1..=12),
        rng.random_range(1..=28)
    )
}

fn time(rng: &mut SmallRng) -> String {
    let frac = if rng.random_bool(0.3) {
        format!(".{}", rng.random_range(0..1000))
    } else {
        String::new()
    };
    format!(
        "{:02}:{:02}:{:02}{frac}{}",
        rng.random_range(0..24),
        rng.random_range(0..60),
        rng.random_range(0..60),
        offset(rng)
    )
}

/// A random value of format `f` (a fixed example a tenth of the time).
pub fn format_value(f: Format, rng: &mut SmallRng) -> String {
    if rng.random_bool(0.1) {
        let pool = format_pool(f);
        return pool[rng.random_range(0..pool.len())].to_string();
    }
    match f {
        Format::DateTime => format!("{}T{}", date(rng), time(rng)),
        Format::Date => date(rng),
        Format::Time => time(rng),
        Format::Duration => match rng.random_range(0..3) {
            0 => format!("P{}D", rng.random_range(0..400)),
            1 => format!("PT{}H{}M", rng.random_range(0..48), rng.random_range(0..60)),
            _ => format!("P{}Y{}M", rng.random_range(0..20), rng.random_range(0..12)),
        },
        Format::Email | Format::IdnEmail => format!("{}@{}", label(rng), host(rng)),
        Format::Hostname | Format::HostnameRfc1123 | Format::IdnHostname => host(rng),
        Format::Ipv4 => (0..4)
            .map(|_| rng.random_range(0..256u32).to_string())
            .collect::<Vec<_>>()
            .join("."),
        Format::Ipv6 => (0..8)
            .map(|_| format!("{:x}", rng.random_range(0..0x10000u32)))
            .collect::<Vec<_>>()
            .join(":"),
        Format::Uri | Format::Iri => format!("https://{}{}", host(rng), path(rng)),
        Format::UriReference | Format::IriReference => match rng.random_range(0..3) {
            0 => format!("https://{}{}", host(rng), path(rng)),
            1 => format!("{}/{}", path(rng), label(rng)),
            _ => format!("#{}", label(rng)),
        },
        Format::UriTemplate => format!("https://{}{}/{{{}}}", host(rng), path(rng), label(rng)),
        Format::Uuid => [8, 4, 4, 4, 12]
            .iter()
            .map(|n| pick(rng, HEX, *n))
            .collect::<Vec<_>>()
            .join("-"),
        Format::JsonPointer => path(rng),
        Format::RelativeJsonPointer => format!("{}{}", rng.random_range(0..5), path(rng)),
        Format::Regex => format!("^{}$", label(rng)),
    }
}

/// Valid examples of each asserted format.
fn format_pool(f: Format) -> &'static [&'static str] {
    match f {
        Format::DateTime => &["2024-01-31T12:00:00Z", "2025-06-01T08:30:15.250+02:00"],
        Format::Date => &["2024-01-31", "2000-02-29"],
        Format::Time => &["12:00:00Z", "23:59:59+01:00"],
        Format::Duration => &["P1D", "PT1H30M", "P1Y2M"],
        Format::Email => &["a@example.com", "first.last@example.org"],
        Format::Hostname => &["example.com", "localhost"],
        Format::Ipv4 => &["192.168.0.1", "10.0.0.255"],
        Format::Ipv6 => &["::1", "2001:db8::1"],
        Format::Uri => &["https://example.com/a", "urn:isbn:0451450523"],
        Format::UriReference => &["/a/b", "https://example.com/x#y"],
        Format::Uuid => &["123e4567-e89b-12d3-a456-426614174000"],
        Format::JsonPointer => &["", "/a/0"],
        Format::Regex => &["^a+$", "[0-9]{2}"],
        Format::HostnameRfc1123 => &["example.com", "a--b.example"],
        Format::IdnHostname => &["example.com", "\u{c2e4}\u{b840}.\u{d14c}\u{c2a4}\u{d2b8}"],
        Format::IdnEmail => &["a@example.com", "caf\u{e9}@example.com"],
        Format::Iri => &[
            "https://example.com/a",
            "http://\u{192}\u{f8}\u{f8}.example/p",
        ],
        Format::IriReference => &["/a/b", "#fr\u{e4}gment"],
        Format::UriTemplate => &["https://example.com/{id}", "/search{?q,page}"],
        Format::RelativeJsonPointer => &["0", "1/a/0", "2#"],
    }
}
