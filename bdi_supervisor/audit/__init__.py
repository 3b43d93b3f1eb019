"""Strategy audit: protocol, deadlock, bounded-failure, trap and livelock checks."""

from bdi_supervisor.audit.auditor import AuditOptions, audit
from bdi_supervisor.audit.protocol import ENUMERATED, ONE_HOT, ProtocolView, infer_encoding
from bdi_supervisor.audit.record import AuditRecord, Defect

__all__ = ["ENUMERATED", "ONE_HOT", "AuditOptions", "AuditRecord", "Defect", "ProtocolView",
           "audit", "infer_encoding"]
