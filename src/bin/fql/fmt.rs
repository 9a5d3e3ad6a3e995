//! `fql fmt`: print a script in canonical form.

use fql::check;
use fql::syntax::{self, Diagnostics};

use crate::args::FmtArgs;
use crate::output::{self, Exit};
use crate::source::read_source;

pub fn run(args: &FmtArgs, color: bool) -> Result<(), Exit> {
    let (name, src) = read_source(args.file.as_deref())?;
    let formatted = match check::load(&src) {
        Ok(script) => syntax::format(&script),
        Err(errors) => {
            let diagnostics = Diagnostics::new(name, src.clone(), errors);
            eprint!("{}", diagnostics.render(color, output::width()));
            return Err(Exit::Invalid);
        }
    };
    if args.check {
        return if formatted == src {
            Ok(())
        } else {
            eprintln!("fql: {name} is not in canonical form");
            Err(Exit::Unmet)
        };
    }
    output::print(&formatted)
}
