//! `fql explain`: what a script, a file or a named one, would do,
//! without running it.

use fql::syntax::Sources;

use crate::args::ExplainArgs;
use crate::output::{self, Exit};
use crate::session::{params, root, with_whole_plan};
use crate::source::read_named_or_file;

pub fn run(args: &ExplainArgs, color: bool) -> Result<(), Exit> {
    let root = root(args.root.as_deref(), color)?;
    let params = params(&args.params, &root, color)?;
    let (name, src) = read_named_or_file(args.file.as_deref())?;
    let sources = Sources::single(name, src);
    with_whole_plan(&sources, &params, &root, color, |plan| {
        output::print(&plan.to_string())
    })
}
