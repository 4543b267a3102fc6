"""`terra-sim report` and `terra-sim compare`: balance reports of finished runs."""

from pathlib import Path

import click

# The analysis modules (polars, scipy, matplotlib) are imported inside the commands: every
# other command, and --help, starts without them.

# A str, not a Path: click makes Path("") the current folder, and an empty --out is refused.
_out = click.option("--out", type=click.Path(file_okay=False), default=None,
                    help="Output folder [default: reports/<run name>/ under the current folder].")
_formats = click.option("--format", "formats", default="html,md", show_default=True,
                        help="Comma-separated report formats: html, md. CSV tables and PNG "
                             "plots are always written.")
_correction = click.option("--correction", type=click.Choice(["holm", "bh"]), default="holm",
                           show_default=True,
                           help="Multiple-testing correction for the verdicts: holm (family-wise "
                                "error) or bh (Benjamini-Hochberg, false discovery rate).")
open_option = click.option("--open", "open_", is_flag=True,
                           help="Open the report in the web browser when it is written.")
_quiet = click.option("--quiet", "-q", is_flag=True,
                      help="Do not print the stages of the report as they run.")


def stage_printer(quiet: bool):
    """Where the report's stages are told: stderr, so that stdout keeps only the results."""
    if quiet:
        return None
    return lambda stage: click.echo(f"report: {stage}...", err=True)


def show_file(result, open_: bool, what: str = "Report") -> None:
    """Name the file to open, and open it when asked."""
    main = result.main_file
    if main is None:
        click.echo(f"{what} tables and plots written to {result.out_dir}")
        return
    click.echo(f"{what} written to {result.out_dir}; open {main}")
    if open_:
        import webbrowser

        if not webbrowser.open(main.resolve().as_uri()):
            click.echo("(no web browser found to open it)", err=True)


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@_out
@_formats
@_correction
@open_option
@_quiet
def report(run_dir: Path, out: str | None, formats: str, correction: str, open_: bool,
           quiet: bool) -> None:
    """Write the balance report of the run in RUN_DIR: report.html, report.md, PNG plots and
    CSV tables, and print the verdicts and the file to open."""
    from terra_sim.analysis.render import parse_formats
    from terra_sim.analysis.report import build_report

    result = build_report(run_dir, out=out, formats=parse_formats(formats),
                          correction=correction, progress=stage_printer(quiet))
    click.echo(result.summary)
    show_file(result, open_)


@click.command()
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder [default: reports/compare-<A>-vs-<B>/ under the current "
                   "folder].")
@_formats
@_correction
@open_option
def compare(run_a: Path, run_b: Path, out: str | None, formats: str, correction: str,
            open_: bool) -> None:
    """Compare two runs for a what-if experiment: per-faction change in win share and VP margin
    from RUN_A (baseline) to RUN_B, with 95% intervals and which changes are significant."""
    from terra_sim.analysis.compare import compare_runs
    from terra_sim.analysis.render import parse_formats

    result = compare_runs(run_a, run_b, out=out, formats=parse_formats(formats),
                          correction=correction)
    click.echo(result.summary)
    show_file(result, open_, "Comparison")


COMMANDS = [report, compare]
