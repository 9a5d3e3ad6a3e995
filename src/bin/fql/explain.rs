//! `fql explain`: what a script, a file or a named one, would do,
//! without running it; with `--analyze`, what it did and what it cost.

use fql::syntax::Sources;

use crate::args::{Color, ExecArgs, ExplainArgs, Format, StoreArgs};
use crate::error::CliError;
use crate::output;
use crate::session::{Session, Settings, params, refuse_writes, root, with_whole_plan};
use crate::source::read_named_or_file;

pub fn run(args: &ExplainArgs, store_args: &StoreArgs, color: Color) -> Result<(), CliError> {
    let stderr_color = color.enabled_for_stderr();
    if !args.analyze {
        refuse_without_analyze(args)?;
    }
    let root = root(args.root.as_deref(), stderr_color)?;
    let params = params(&args.params, &root, stderr_color)?;
    let (name, src) = read_named_or_file(args.file.as_deref())?;
    let sources = Sources::single(name, src);
    with_whole_plan(&sources, &params, &root, stderr_color, |plan| {
        if !args.analyze {
            return output::print(&plan.to_string());
        }
        let exec = ExecArgs {
            params: args.params.clone(),
            write: args.write,
            format: args.format,
            root: args.root.clone(),
            ..ExecArgs::default()
        };
        let settings = Settings::from_args(&exec, color)?;
        refuse_writes(&settings, &sources, plan)?;
        let opened = crate::store::open(store_args)?;
        let session = Session::new(opened.db, settings, false, opened.timeout);
        session.stop_on_interrupt();
        let (report, status) = crate::analyze::analyze(&session, plan, &sources, None);
        output::print(&report)?;
        status
    })
}

/// The flags that only `--analyze` gives a meaning to.
fn refuse_without_analyze(args: &ExplainArgs) -> Result<(), CliError> {
    let flag = match args.format {
        Some(Format::Json) => "--format json",
        Some(Format::Jsonl) => "--format jsonl",
        _ if args.write => "-w/--write",
        _ => return Ok(()),
    };
    Err(CliError::Usage(format!(
        "{flag} needs --analyze: `fql explain` alone runs nothing and prints the plan as text"
    )))
}
