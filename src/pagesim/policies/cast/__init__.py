"""CAST (lru_cast), split as the seed's layout: core (state word, clock, key), policy (W and M,
ties, the sweep, the hooks), walk (young bits), tune (the controllers' interface)."""
