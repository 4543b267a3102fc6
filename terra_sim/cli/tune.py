"""`terra-sim tune`: a weighted bot's weights found by self-play (terra_sim.run.tune)."""

import contextlib
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from terra_sim.cli.options import game_option
from terra_sim.core.errors import StrategyError, UserError


@click.command()
@game_option
@click.option("--strategy", default="greedy", show_default=True,
              help="The bot to tune: one whose play is a set of weights (a game's greedy or a "
                   "plan), by name or as path/to/file.py:Class or package.module:Class.")
@click.option("--faction", default="",
              help="Tune for one faction: it sits in the tuned seat of every game; `all`: "
                   "each faction in turn, a file each (default: every faction, as dealt).")
@click.option("--players", default="4", show_default=True, help="Player count, or several: 2,4.")
@click.option("--opponents",
              help="The other seats' bots, comma-separated (default: the game's scripted bots).")
@click.option("--weights", "names",
              help="Search only these weights, comma-separated (default: all of the bot's).")
@click.option("--start", type=click.Path(path_type=Path),
              help="Start from the [weights] of this file (a tuning's output).")
@click.option("-w", "--weight", "set_weights", multiple=True, metavar="NAME=VALUE",
              help="A start weight (repeatable; applied after --start).")
@click.option("--pool", type=int, default=64, show_default=True,
              help="Games every candidate plays: the same games for all (common random "
                   "numbers).")
@click.option("--holdout", type=int, default=64, show_default=True,
              help="Other games, for the start-against-tuned measure.")
@click.option("--generations", type=int, default=20, show_default=True,
              help="CMA-ES generations.")
@click.option("--popsize", type=int, default=0,
              help="Candidates a generation (default: CMA-ES's for the number of weights).")
@click.option("--sigma", type=float, default=0.3, show_default=True,
              help="The first step size, as a share of each weight's start value.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the pools and of "
              "CMA-ES: the same seed gives the same weights.")
@click.option("--workers", type=int, help="Worker processes (default: all cores).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="Play on local worker processes or a Dask cluster.")
@click.option("--scheduler", help="A running Dask scheduler (tcp://host:port); default: "
                                  "DASK_SCHEDULER_ADDRESS, else a LocalCluster of --workers.")
@click.option("--out", type=click.Path(path_type=Path),
              help="The tuned weights' file (default: tuned/<strategy>[-<faction>].toml beside "
                   "the game's bots); with --faction all, the folder of the files.")
@click.option("--fresh", is_flag=True, help="Start over instead of resuming this tuning.")
def tune(game: str, strategy: str, faction: str, players: str, opponents: str | None,
         names: str | None, start: Path | None, set_weights: tuple[str, ...], pool: int,
         holdout: int, generations: int, popsize: int, sigma: float, seed: int,
         workers: int | None, executor: str, scheduler: str | None, out: Path | None,
         fresh: bool) -> None:
    """Find the weights of a game's scripted bot by playing games: CMA-ES over the weights,
    every candidate judged by its mean VP margin over one fixed pool of games against the
    other bots. A killed tuning resumes with the same command (its checkpoint is under
    runs/tune/). Writes the weights with their provenance (command, seed, games, date and the
    strength reached, also on held-out games)."""
    from strategies.registry import default_strategies, resolve
    from strategies.weighted import WeightedStrategy
    from terra_sim.games import get_game
    from terra_sim.run.executor import choose
    from terra_sim.run.tune import TunePlan, checkpoint_path, read_weights, write_weights
    from terra_sim.run.tune import tune as run_tune

    g = get_game(game)
    cls = resolve(strategy, g.slug)
    if not issubclass(cls, WeightedStrategy):
        raise UserError(f"strategy {strategy!r} has no weights to tune (a game's greedy and "
                        "its plans have)")
    for what, n in (("--pool", pool), ("--holdout", holdout), ("--generations", generations)):
        if n < 1:
            raise UserError(f"{what} must be at least 1, got {n}")
    if sigma <= 0 or popsize < 0:
        raise UserError("--sigma must be above 0 and --popsize not below 0")
    if faction and faction != "all" and faction not in g.faction_slugs():
        raise UserError(f"unknown faction {faction!r} for {g.slug} "
                        f"(valid: {', '.join(g.faction_slugs())})")
    counts = _ints(players, "--players")
    bad = [n for n in counts if n not in g.player_counts]
    if bad:
        raise UserError(f"{g.slug} plays with {', '.join(map(str, g.player_counts))} players, "
                        f"not {bad[0]}")
    opp = opponents.split(",") if opponents else default_strategies(g.slug)
    for o in opp:
        resolve(o, g.slug)
    known = cls.start_weights()
    given: dict[str, float] = {}  # --start's and -w's, laid over the shipped tuned weights
    if start is not None:
        given.update(_known(read_weights(start), known, str(start)))
    for item in set_weights:
        k, eq, v = item.partition("=")
        try:
            given.update(_known({k.strip(): float(v)}, known, "-w"))
        except ValueError:
            raise UserError(f"-w {item!r}: expected NAME=NUMBER") from None
        if not eq:
            raise UserError(f"-w {item!r}: expected NAME=NUMBER")
    searched = [n.strip() for n in names.split(",")] if names else list(known)
    _known(dict.fromkeys(searched, 0.0), known, "--weights")
    base = TunePlan(game=g.slug, strategy=strategy, start={**known, **given}, names=searched,
                    opponents=opp, players=counts, faction="", pool=pool, holdout=holdout,
                    generations=generations, popsize=popsize, sigma=sigma, seed=seed)
    # a faction's tuning goes on from the weights it plays now: its own file if one ships
    plans = [replace(base, faction=f, start={**cls.start_weights(f), **given})
             for f in (g.faction_slugs() if faction == "all" else [faction] if faction else [])
             ] or [base]
    on = choose(executor, scheduler)
    n = workers or os.cpu_count() or 1
    # on Dask the games go out one task each to the cluster's client; locally to a fork pool
    with on.client(n) if hasattr(on, "client") else contextlib.nullcontext() as client:
        for plan in plans:
            path = _out(out, g.slug, cls.name, plan.faction, faction == "all")
            checkpoint = checkpoint_path(Path("runs"), path, plan)
            if len(plans) > 1:
                click.echo(f"{plan.faction}:")
            try:
                result = run_tune(plan, checkpoint, n, progress=True, fresh=fresh, client=client)
            except KeyboardInterrupt:
                click.echo(f"\nInterrupted; the same command resumes from {checkpoint}.",
                           err=True)
                sys.exit(130)
            except StrategyError as e:  # a bot bug decides no weights: stop, and say where
                click.echo(f"\nTuning stopped: {e}\nOnce the bot is mended, the same command "
                           f"resumes from {checkpoint}.", err=True)
                sys.exit(1)
            click.echo(f"mean VP margin, tuning pool ({pool} games): "
                       f"{result.start_margin:+.2f} -> {result.tuned_margin:+.2f}")
            click.echo(f"mean VP margin, held-out games ({holdout}): "
                       f"{result.holdout_start:+.2f} -> {result.holdout_tuned:+.2f}")
            if plan.faction and result.holdout_tuned <= result.holdout_start:
                # a faction's own weights only where they pay: else it keeps the ones it plays
                click.echo(f"no gain on the held-out games: {path} not written, {plan.faction} "
                           "keeps the weights it plays now")
                continue
            write_weights(path, result, _command(plan, plan.start, cls), g.version, g.data_set)
            click.echo(f"{result.games_played} games played. Weights: {path}")


def _out(out: Path | None, game: str, name: str, faction: str, each: bool) -> Path:
    """--out, or (for --faction all, inside --out) <strategy>[-<faction>].toml, by default in
    tuned/ beside the game's bots."""
    stem = f"{name}-{faction}" if faction else name
    if out is not None:
        return out / f"{stem}.toml" if each else out
    from terra_sim.games import game_bots

    where = getattr(game_bots(game), "__file__", None)
    if where is None:
        raise UserError(f"{game} has no bot folder to keep tuned weights in: give --out")
    return Path(where).parent / "tuned" / f"{stem}.toml"


def _ints(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise UserError(f"{what}: expected whole numbers, got {text!r}") from None


def _known(given: dict[str, float], weights: dict[str, Any], where: str) -> dict[str, float]:
    unknown = sorted(set(given) - set(weights))
    if unknown:
        raise UserError(f"{where}: unknown weights {unknown} (valid: {', '.join(weights)})")
    return given


def _command(plan: Any, weights: dict[str, float], cls: Any) -> str:
    """The command that makes these weights again, every choice spelled out."""
    parts = ["terra-sim tune", f"--game {plan.game}", f"--strategy {plan.strategy}",
             f"--players {','.join(map(str, plan.players))}",
             f"--opponents {','.join(plan.opponents)}", f"--pool {plan.pool}",
             f"--holdout {plan.holdout}", f"--generations {plan.generations}",
             f"--sigma {plan.sigma}", f"--seed {plan.seed}"]
    if plan.faction:
        parts.append(f"--faction {plan.faction}")
    if plan.popsize:
        parts.append(f"--popsize {plan.popsize}")
    if plan.names != list(weights):
        parts.append(f"--weights {','.join(plan.names)}")
    # every start weight, spelled out: a tuning starts from the shipped tuned weights, which
    # this very file may replace, so the command must not lean on them
    parts += [f"-w {k}={v}" for k, v in weights.items()]
    return " ".join(parts)


COMMANDS = [tune]
