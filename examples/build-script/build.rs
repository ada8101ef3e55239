fn main() {
    ctxgen::generate("schemas").expect("the schemas generate");
}
