//! `fql explain`: what a script would do, without running it.

use fql::syntax::Diagnostics;

use crate::args::ExplainArgs;
use crate::fmt::read_source;
use crate::output::{self, Exit};

pub fn run(args: &ExplainArgs, color: bool) -> Result<(), Exit> {
    let (name, src) = read_source(args.file.as_deref())?;
    let script = match fql::syntax::load(&src) {
        Ok(script) => script,
        Err(errors) => {
            let diagnostics = Diagnostics::new(name, src.clone(), errors);
            eprint!("{}", diagnostics.render(color, output::width()));
            return Err(Exit::Invalid);
        }
    };
    match fql::plan::plan(&script, &Default::default()) {
        Ok(plan) => output::print(&plan.to_string()),
        Err(errors) => {
            for e in errors {
                let report = miette::Report::new(e)
                    .with_source_code(miette::NamedSource::new(name.clone(), src.clone()));
                eprintln!("{report:?}");
            }
            Err(Exit::Invalid)
        }
    }
}
