//! Parses an order with the types ctxgen generated from `schemas/` at build time.

mod schemas {
    #![allow(dead_code, unused_imports)]
    include!(concat!(env!("OUT_DIR"), "/schemas.rs"));
}

use schemas::Order;

fn main() {
    let text = r#"{"id": "ord-17", "items": [{"sku": "tea", "quantity": 2}]}"#;
    match Order::from_json(text) {
        Ok(order) => println!("{} item(s), status {:?}", order.items.len(), order.status),
        Err(e) => eprintln!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::schemas::{Error, Order};

    #[test]
    fn parses_a_valid_order_and_reports_every_violation_of_a_bad_one() {
        let order =
            Order::from_json(r#"{"id": "ord-1", "items": [{"sku": "a", "quantity": 1}]}"#).unwrap();
        assert_eq!(order.items[0].quantity, 1);
        let bad = r#"{"id": "x", "items": [{"sku": "", "quantity": 0}]}"#;
        let Err(Error::Invalid(v)) = Order::from_json(bad) else {
            panic!("accepted {bad}");
        };
        let found: Vec<(&str, &str)> =
            v.0.iter()
                .map(|v| (v.pointer.as_str(), v.keyword))
                .collect();
        assert_eq!(
            found,
            [
                ("/id", "pattern"),
                ("/items/0/sku", "minLength"),
                ("/items/0/quantity", "minimum")
            ]
        );
    }
}
