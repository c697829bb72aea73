"""What people look at: one verdict as a web page (step by step, the DAG, the failure, the hashes) and as a
PDF compliance report for an auditor. Both read one `VerdictView` built from the request and its verdict, and
both say in their header whether anything the reader trusts vouches for the verdict (`attestation`)."""

from reasonforge.report.attestation import Attestation, Standing
from reasonforge.report.html import PAGE_CSP, verdict_page
from reasonforge.report.listing import Listed, listing_page, read_results, write_listing
from reasonforge.report.pdf import SECTIONS, ReportTemplate, compliance_report
from reasonforge.report.view import Certified, VerdictView, build_view, certified_from

__all__ = ["PAGE_CSP", "SECTIONS", "Attestation", "Certified", "Listed", "ReportTemplate", "Standing", "VerdictView",
           "build_view", "certified_from", "compliance_report", "listing_page", "read_results", "verdict_page",
           "write_listing"]
