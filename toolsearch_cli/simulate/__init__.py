"""Simulation: run scripted conversations (or replay recorded ones) through the disclosure engine."""

from __future__ import annotations

from ..arguments import check_arguments
from .loop import Model, Reply
from .replay import load_conversation, replay
from .run import Progress, SimulationResult, run_simulation
from .runner import ScriptedModel, build_engine, run_script
from .script import Expectation, Script, ScriptError, load_script, parse_context, parse_script
from .settings import LiveSettings, Settings, SimulateSettings, merged_settings
from .transcript import TRANSCRIPT_FORMAT, CallRecord, Finding, RequestRecord, Transcript

__all__ = [
    "TRANSCRIPT_FORMAT",
    "CallRecord",
    "Expectation",
    "Finding",
    "LiveSettings",
    "Model",
    "Progress",
    "Reply",
    "RequestRecord",
    "Script",
    "ScriptError",
    "ScriptedModel",
    "Settings",
    "SimulateSettings",
    "SimulationResult",
    "Transcript",
    "build_engine",
    "check_arguments",
    "load_conversation",
    "load_script",
    "merged_settings",
    "parse_context",
    "parse_script",
    "replay",
    "run_script",
    "run_simulation",
]
