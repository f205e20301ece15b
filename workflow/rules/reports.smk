# Cross-game report outputs (each game's own report rule lives in its rules file).
