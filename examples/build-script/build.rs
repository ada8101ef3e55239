fn main() {
    if let Err(e) = ctxgen::generate("../../schemas") {
        panic!("{e}");
    }
}
