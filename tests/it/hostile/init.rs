//! init on many columns: a suggested command that runs, time near-linear in the columns (case 8).
