"""Game-agnostic core: protocol, hex maps, power bowls, seeded streams, records."""
