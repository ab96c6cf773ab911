"""An example Python-module catalog: plain functions marked with ``@tool``.

Load it with ``toolsearch search "restart a service" --catalog catalogs/python/ops_tools.py``
(or ``--catalog catalogs.python.ops_tools`` from the repository root). The parameter schema
comes from the type hints, the descriptions from the docstrings (Google style ``Args:``), and
the functions stay callable.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from toolsearch_cli import Tool, tool


class Threshold(BaseModel):
    """When an alert fires."""

    metric: str = Field(description="Metric name, e.g. cpu_percent. 指标名称")
    above: float = Field(description="Fire when the metric stays above this value. 阈值")
    minutes: int = Field(5, description="For how many minutes. 持续分钟数")


@tool(
    category="ops",
    tags=["service", "restart", "deploy", "服务", "重启"],
    examples=["restart the billing service", "重启支付服务"],
)
def restartService(service: str, environment: Literal["staging", "production"] = "staging", drain: bool = True) -> str:
    """Restart a running service in one environment, draining connections first. 重启指定环境中的服务。

    Args:
        service: Service name as registered in the service catalog. 服务名称
        environment: Where to restart it. 部署环境
        drain: Wait for open connections to finish before stopping. 是否先排空连接
    """
    return f"restarted {service} in {environment}"


@tool(
    category="ops",
    tags=["logs", "search", "日志"],
    examples=["show me the error logs of checkout", "查看订单服务的错误日志"],
)
def searchLogs(
    service: str, query: str, since_minutes: int = 60, level: Literal["debug", "info", "warning", "error"] = "error"
) -> list[str]:
    """Search a service's logs for lines matching a query. 搜索服务日志。

    Args:
        service: Service whose logs to search. 服务名称
        query: Text or pattern to look for. 搜索关键词
        since_minutes: How far back to look, in minutes. 回溯分钟数
        level: Lowest log level to include. 最低日志级别
    """
    return []


@tool(
    category="ops",
    tags=["alert", "monitoring", "告警", "监控"],
    examples=["alert me when CPU goes over 90%", "CPU 超过 90% 时告警"],
)
def createAlert(name: str, threshold: Threshold, notify: list[str]) -> dict[str, str]:
    """Create a monitoring alert that notifies people when a metric crosses a threshold. 创建监控告警。

    Args:
        name: Alert name. 告警名称
        threshold: The condition that fires the alert. 触发条件
        notify: Email addresses or channel names to notify. 通知对象
    """
    return {"alert": name}


@tool(
    category="ops",
    tags=["rollback", "deploy", "revert", "回滚"],
    examples=["roll back the checkout deploy, it is throwing errors", "把支付服务回滚到上一个版本"],
)
def rollbackDeployment(service: str, to_version: str | None = None) -> str:
    """Roll a service back to its previous (or a given) deployed version. 回滚服务到上一个版本。

    Args:
        service: Service to roll back. 服务名称
        to_version: Version to roll back to; the previous one when omitted. 目标版本
    """
    return f"rolled back {service}"


# A module-level list may hold functions (marked or plain) and ready-made Tool objects.
TOOLS = [
    rollbackDeployment,
    Tool(
        name="getOnCall",
        description="Who is on call now for a team, with phone and chat handle. 查询团队当前值班人员。",
        category="ops",
        tags=["on-call", "pager", "值班"],
        examples=["who is on call for payments", "现在谁值班"],
        parameters={
            "type": "object",
            "properties": {"team": {"type": "string", "description": "Team name. 团队名称"}},
            "required": ["team"],
        },
    ),
]
