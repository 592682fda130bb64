//! Destinations in shared folders: modes, planted links, streams, concurrent runs (cases 1-4).
