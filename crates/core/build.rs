//! Compiles dict/enable1.txt into the trie that the binary embeds, so that loading the default
//! dictionary costs a copy, not a parse, and no file is needed at run time. The compiler is
//! src/dict/compile.rs, the same code the runtime uses for `--dict` lists.

#[path = "src/dict/compile.rs"]
#[allow(dead_code)]
mod compile;

fn main() {
    let src = "../../dict/enable1.txt";
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-changed=src/dict/compile.rs");
    let text = std::fs::read(src).unwrap_or_else(|e| panic!("cannot read {src}: {e}"));
    let (bytes, _) = compile::compile(&text);
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("enable1.trie");
    std::fs::write(&out, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}
