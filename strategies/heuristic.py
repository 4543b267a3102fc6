"""What the search bot knows of a game: which moves to search, how playouts play, how a leaf is
valued. A game's bot package (strategies/<game>/) lends its own as HEURISTIC; without one the
search bot uses this class, which knows nothing of any game: every legal action is searched,
playouts are uniformly random, and a leaf is worth its VP.
"""

import random
from pathlib import Path
from typing import Any, ClassVar

from strategies.leaf import LeafModel, shipped
from strategies.loader import class_folders, module_folder


class Heuristic:
    # The search bot's parameters for this game where they differ from its own defaults (say, a
    # longer horizon where a round's end values a position badly); a bot's own parameters win.
    search_defaults: ClassVar[dict[str, Any]] = {}
    # The names of leaf_terms' terms, for a game whose leaves may be valued by a model fitted to
    # how games ended (strategies/leaf.py); empty: the game has none.
    leaf_names: ClassVar[tuple[str, ...]] = ()
    # The last of leaf_names that are counts of the position beside the valuation's terms: only
    # the fitted model weighs them, and the terms before them add up to the valuation.
    leaf_features: ClassVar[tuple[str, ...]] = ()

    def __init__(self, rng: random.Random, candidates: int, noise: float):
        self.rng = rng  # the bot's own stream: a heuristic's choices replay with the seed
        self.candidates = candidates  # how many root moves a pruning heuristic keeps
        self.noise = noise  # how far a heuristic playout policy strays from its best guess
        # Set by the search for each playout: this one follows the policy's best guess, without
        # noise (a random policy has none to leave out).
        self.exact = False

    @property
    def playout_noise(self) -> float:
        """How far this playout's policy strays: not at all when the search asks for its exact
        line."""
        return 0.0 if self.exact else self.noise

    def decide(self, state: Any, legal: list) -> Any | None:
        """A choice that is not worth a search (a forced move, a bookkeeping decision), or None
        to search this one."""
        return legal[0] if len(legal) == 1 else None

    def root_moves(self, state: Any, legal: list) -> list[tuple[list[Any], float]]:
        """The moves to search, best guess first, each as the actions the deciding seat plays in
        a row (say, a free conversion, then the action it pays for) and a prior bonus."""
        return [([a], 0.0) for a in legal]

    def playout(self, state: Any, legal: list, memo: dict[str, Any]) -> Any:
        """One playout move for whoever decides in `state`. `memo` is this state's own scratch
        within one search: what is stored there comes back whenever a playout reaches the same
        state by the same moves, so a pure function of the state may be kept there (the random
        parts of a move may not)."""
        return legal[self.rng.randrange(len(legal))]

    def playout_over(self, state: Any, last_round: float) -> bool:
        """Stop the playout here and value the leaf: past the search's last round."""
        return state.round > last_round

    def values(self, state: Any) -> list[float]:
        """What `state` is worth to each seat, on one scale: VP, or VP to come."""
        return [float(v) for v in state.vp()]

    def leaf_terms(self, state: Any, seat: int) -> tuple[str, list[float]]:
        """seat's faction and its valuation's terms in `state`, named by leaf_names: what the
        fitted leaf value weighs (strategies/fit_leaf.py records them)."""
        raise NotImplementedError(f"{type(self).__name__} names no leaf terms")

    def leaf_model(self, players: int) -> LeafModel | None:
        """The fitted leaf model shipped beside the game's bots for `players`-player games, or
        None (the game has no terms, or no model for that many players)."""
        if not self.leaf_names:
            return None
        for folder in class_folders(type(self)):  # a plug-in heuristic: the game's own model
            model = shipped(folder, players, self.leaf_names)
            if model is not None:
                return model
        return None

    @classmethod
    def folder(cls) -> Path:
        """The heuristic's own bot folder, where `fit_leaf` writes its tuned/ model."""
        return module_folder(cls.__module__)
