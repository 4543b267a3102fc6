"""The `list` and `play` commands, and the CLI's handling of user mistakes."""

from click.testing import CliRunner

from terra_sim import get_game
from terra_sim.cli import cli


def test_list_factions_shows_home_terrain_and_side():
    result = CliRunner().invoke(cli, ["list", "factions", "--game", "terra-nova"])
    assert result.exit_code == 0
    rows = {line.split()[0]: line.split()[1:] for line in result.output.splitlines()[1:]}
    assert rows["golems"] == ["wasteland", "red", "A"]
    assert rows["sea-dogs"] == ["lake", "blue", "B"]
    assert set(rows) == set(get_game("terra-nova").faction_slugs())


def test_play_prints_rounds_and_breakdown():
    result = CliRunner().invoke(cli, ["play", "--game", "terra-nova", "--players", "4",
                                      "--seed", "1"])
    assert result.exit_code == 0, result.output
    for rnd in range(1, 6):
        assert f"== round {rnd} ==" in result.output
    assert "Final score breakdown:" in result.output
    assert "territory" in result.output


def test_play_takes_game_options():
    result = CliRunner().invoke(cli, ["play", "--players", "2", "--seed", "3", "-o",
                                      "variant=planner", "--option", "turn_order=dropout"])
    assert result.exit_code == 0, result.output
    assert "neutral" in result.output


def test_list_options_shows_each_option_with_its_default_first():
    result = CliRunner().invoke(cli, ["list", "options", "--game", "terra-nova"])
    assert result.exit_code == 0
    rows = {line.split()[0]: line.split(None, 1)[1] for line in result.output.splitlines()}
    assert rows == {"variant": "standard, planner, lucky-digger",
                    "turn_order": "clockwise, dropout"}


def test_play_is_deterministic():
    run = lambda: CliRunner().invoke(cli, ["play", "--seed", "5", "--players", "3"]).output  # noqa: E731
    assert run() == run()


def test_user_mistakes_exit_2_without_traceback():
    runner = CliRunner()
    for args, needle in [
        (["play", "--factions", "golems,elves"], "unknown faction 'elves'"),
        (["play", "--factions", "golems,fire-sprites"], "share the red mat"),
        (["play", "--strategies", "nobody"], "unknown strategy 'nobody'"),
        (["play", "--players", "4", "-o", "variant=planner"], "for 2 players"),
        (["play", "-o", "variant"], "expected KEY=VALUE"),
        (["play", "-o", "weather=rain"], "unknown terra-nova option 'weather'"),
        (["play", "--game", "chess"], "unknown game 'chess'"),
        (["list", "factions", "--game", "chess"], "unknown game 'chess'"),
        (["list", "strategies", "--game", "chess"], "unknown game 'chess'"),
    ]:
        result = runner.invoke(cli, args)
        assert result.exit_code == 2, (args, result.output)
        assert needle in result.output
        assert "Traceback" not in result.output


def test_every_command_has_help():
    def walk(group, prefix):
        for name, cmd in group.commands.items():
            assert cmd.help, f"{prefix} {name} has no help text"
            if hasattr(cmd, "commands"):
                walk(cmd, f"{prefix} {name}")
    walk(cli, "terra-sim")
