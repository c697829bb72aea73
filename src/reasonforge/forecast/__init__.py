"""Forecast evaluation: strict parsing, strictly proper scores, market skill, calibration, harvesting.

Light names import eagerly; the NumPy-, httpx- and matplotlib-backed ones load on first use.
"""

from reasonforge.forecast.parse import parse_probability

__all__ = [
    "EndpointError",
    "ForecastFilters",
    "ForecastItem",
    "PredictionRow",
    "PredictionsFile",
    "append_prediction",
    "apply_filters",
    "baselines",
    "brier_reward",
    "calibration_report",
    "contamination_probe",
    "load_dataset",
    "load_environment",
    "load_items",
    "log_reward",
    "murphy_decomposition",
    "parse_probability",
    "read_predictions",
    "read_predictions_file",
    "score",
    "score_predictions",
    "write_predictions",
]

_LAZY = {
    "PredictionRow": "reasonforge.forecast.predictions",
    "PredictionsFile": "reasonforge.forecast.predictions",
    "append_prediction": "reasonforge.forecast.predictions",
    "read_predictions": "reasonforge.forecast.predictions",
    "read_predictions_file": "reasonforge.forecast.predictions",
    "write_predictions": "reasonforge.forecast.predictions",
    "EndpointError": "reasonforge.forecast.runner",
    "ForecastFilters": "reasonforge.forecast.dataset",
    "ForecastItem": "reasonforge.forecast.dataset",
    "apply_filters": "reasonforge.forecast.dataset",
    "load_dataset": "reasonforge.forecast.dataset",
    "load_items": "reasonforge.forecast.dataset",
    "baselines": "reasonforge.forecast.report",
    "score_predictions": "reasonforge.forecast.report",
    "brier_reward": "reasonforge.forecast.rules",
    "log_reward": "reasonforge.forecast.rules",
    "score": "reasonforge.forecast.metrics",
    "calibration_report": "reasonforge.forecast.calibration",
    "murphy_decomposition": "reasonforge.forecast.calibration",
    "contamination_probe": "reasonforge.forecast.probe",
    "load_environment": "reasonforge.forecast.env",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)
