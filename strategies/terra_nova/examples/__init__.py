"""Example custom bots (loadable as strategies.examples.<module>:<Class>)."""
