//! The JSON Schema meta-schemas, bundled so that a `$ref` to one resolves offline.

/// (URI without fragment, text) of every bundled meta-schema.
pub const META_SCHEMAS: &[(&str, &str)] = &[
    (
        "http://json-schema.org/draft-04/schema",
        include_str!("meta/draft4.json"),
    ),
    (
        "http://json-schema.org/draft-06/schema",
        include_str!("meta/draft6.json"),
    ),
    (
        "http://json-schema.org/draft-07/schema",
        include_str!("meta/draft7.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/schema",
        include_str!("meta/draft2019-09/schema.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/core",
        include_str!("meta/draft2019-09/meta/core.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/applicator",
        include_str!("meta/draft2019-09/meta/applicator.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/validation",
        include_str!("meta/draft2019-09/meta/validation.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/meta-data",
        include_str!("meta/draft2019-09/meta/meta-data.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/format",
        include_str!("meta/draft2019-09/meta/format.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/content",
        include_str!("meta/draft2019-09/meta/content.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/schema",
        include_str!("meta/draft2020-12/schema.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/core",
        include_str!("meta/draft2020-12/meta/core.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/applicator",
        include_str!("meta/draft2020-12/meta/applicator.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/unevaluated",
        include_str!("meta/draft2020-12/meta/unevaluated.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/validation",
        include_str!("meta/draft2020-12/meta/validation.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/meta-data",
        include_str!("meta/draft2020-12/meta/meta-data.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-annotation",
        include_str!("meta/draft2020-12/meta/format-annotation.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-assertion",
        include_str!("meta/draft2020-12/meta/format-assertion.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/content",
        include_str!("meta/draft2020-12/meta/content.json"),
    ),
];

/// The bundled meta-schema with this URI (fragment and trailing `#` ignored), if any.
pub fn find(uri: &str) -> Option<&'static str> {
    let uri = uri.trim_end_matches('#');
    META_SCHEMAS
        .iter()
        .find(|(u, _)| *u == uri)
        .map(|(_, t)| *t)
}
