//! `planner review --format json`: the documented JSON (`docs/review.md`).

use crate::render::json::JsonError;
use crate::review::Review;

/// The documented JSON.
pub(crate) fn json(review: &Review) -> Result<String, JsonError> {
    crate::render::json::to_json(review)
}
