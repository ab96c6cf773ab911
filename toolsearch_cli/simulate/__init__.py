"""Simulation: run scripted conversations (or replay recorded ones) through the disclosure engine."""

from __future__ import annotations

from .replay import load_conversation, replay
from .runner import Model, Reply, ScriptedModel, Settings, build_engine, check_arguments, merged_settings, run_script
from .script import Expectation, Script, ScriptError, load_script, parse_context, parse_script
from .transcript import TRANSCRIPT_FORMAT, CallRecord, Finding, RequestRecord, Transcript

__all__ = [
    "TRANSCRIPT_FORMAT",
    "CallRecord",
    "Expectation",
    "Finding",
    "Model",
    "Reply",
    "RequestRecord",
    "Script",
    "ScriptError",
    "ScriptedModel",
    "Settings",
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
]
