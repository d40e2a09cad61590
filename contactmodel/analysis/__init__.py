"""Contact analysis: modes, complementary (mode) cones, verification, diagnostics, all solutions."""
