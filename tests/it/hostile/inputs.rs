//! Inputs and configs that are not regular files, lines without end, bytes not in the input's
//! encoding (cases 5 and 9).
