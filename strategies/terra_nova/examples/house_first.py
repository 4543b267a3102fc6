"""A custom bot: build the cheapest house it can, else upgrade, else drop out for coins."""

from typing import Any

from strategies.base import Strategy


class HouseFirst(Strategy):
    name = "house-first"
    description = "Builds the cheapest house in reach; upgrades when it cannot; never digs."
    params = {"upgrade": True}  # set upgrade = false in a config variant to only build
    games = ("terra-nova",)  # it reads Terra Nova's state: naming it for another game is an error

    def choose(self, state: Any, legal: list) -> Any:
        p = state.players[state.current_player()]
        kinds = {a.kind: a for a in legal}
        if "town" in kinds:  # a town was founded: the tile with the most points
            return max((a for a in legal if a.kind == "town"),
                       key=lambda a: state.data.town_tiles[a.args[0]]["vp"])
        builds = [a for a in legal if a.kind == "build"]
        if builds:  # fewest shovels first, ties broken by our seeded random stream
            return min(builds, key=lambda a: (state.shovels(p, a.args[0]), self.rng.random()))
        if self.p["upgrade"] and "upgrade" in kinds:
            return kinds["upgrade"]
        passes = [a for a in legal if a.kind in ("pass", "pick")]
        if passes:  # the bonus tile with the most coins on it
            return max(passes, key=lambda a: (state.supply.get(a.args[0], 0) if a.args else 0,
                                              a.args))
        for kind in ("done", "place", "edge-house", "neutral"):
            if kind in kinds:
                return kinds[kind]
        return legal[0]
