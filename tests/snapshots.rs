//! Golden tests of the front end: for each script in `tests/syntax/`, the
//! AST it parses to (spans included), or every diagnostic it gets, as
//! printed for people. Review changes with `cargo insta review`.

use fql::check::load;
use fql::syntax::{self, Diagnostics};

#[test]
fn syntax() {
    insta::glob!("syntax/*.fql", |path| {
        let src = std::fs::read_to_string(path).expect("a readable script");
        let name = path.file_name().expect("a file name").to_string_lossy();
        match load(&src) {
            Ok(script) => {
                let canonical = syntax::format(&script);
                insta::assert_snapshot!(format!("{canonical}\n{script:#?}"));
            }
            Err(errors) => {
                insta::assert_snapshot!(
                    Diagnostics::new(name, src.as_str(), errors).render(false, 100)
                );
            }
        }
    });
}
