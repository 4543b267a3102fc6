"""Whether two runs played the same games: every table equal, the timing column aside."""


def run_tables(result):
    """A run's tables, without the timing column that differs between identical runs."""
    return {"games": result.games.drop("duration_s"), "players": result.players,
            "actions": result.actions, "errors": result.errors}


def assert_same(a, b):
    for name, df in run_tables(a).items():
        other = run_tables(b)[name]
        assert df.height == other.height, name
        assert df.equals(other), name
