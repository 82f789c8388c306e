//! (the file walker comes in the oracle step)
