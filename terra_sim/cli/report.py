"""`terra-sim report` and `terra-sim compare`: balance reports of finished runs."""

from pathlib import Path

import click

from terra_sim.analysis.compare import compare_runs
from terra_sim.analysis.render import parse_formats
from terra_sim.analysis.report import build_report

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


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@_out
@_formats
@_correction
def report(run_dir: Path, out: str | None, formats: str, correction: str) -> None:
    """Write the balance report of the run in RUN_DIR: report.html, report.md, PNG plots and
    CSV tables, and print a short summary."""
    result = build_report(run_dir, out=out, formats=parse_formats(formats),
                          correction=correction)
    click.echo(result.summary)
    click.echo(f"Report written to {result.out_dir}")


@click.command()
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder [default: reports/compare-<A>-vs-<B>/ under the current "
                   "folder].")
@_formats
@_correction
def compare(run_a: Path, run_b: Path, out: str | None, formats: str, correction: str) -> None:
    """Compare two runs for a what-if experiment: per-faction change in win share and VP margin
    from RUN_A (baseline) to RUN_B, with 95% intervals and which changes are significant."""
    result = compare_runs(run_a, run_b, out=out, formats=parse_formats(formats),
                          correction=correction)
    click.echo(result.summary)
    click.echo(f"Comparison written to {result.out_dir}")


COMMANDS = [report, compare]
