//! Limits honoured: `-timeLimit` in every phase, configs handled in near-linear time (cases 6, 7).
