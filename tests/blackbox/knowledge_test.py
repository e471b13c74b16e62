#!/usr/bin/env python3
"""Black-box tests of the knowledge tier through the real `engram serve` (and `engram ingest`):
upload, list, context with citations, re-ingest atomicity against failing uploads (a damaged
PDF, an unknown type, a document over the limit, a parser past its time), a PDF written by the
test itself, verified hard delete, server paths, and isolation between tenants and agents.

Usage: knowledge_test.py --engram PATH [--crash-writer PATH] [unittest options]
"""

import base64
import json
import os
import stat
import time
import unittest

import server_harness as h
from server_harness import ServerTestCase, create_key, run_engram

POLICY = (
    "# Returns policy\n\n"
    "Customers may return unused items within 30 days of delivery.\n\n"
    "## Refund timing\n\n"
    "Refunds reach the original card within 14 days after the warehouse receives the parcel.\n\n"
    "## 损坏的包裹\n\n"
    "- 拆箱前请拍下破损的外包装。\n"
    "- 48 小时内把照片发到 claims@example.com。\n"
)


def minimal_pdf(lines):
    """A one-page PDF showing `lines` (Helvetica), with a correct cross-reference table."""
    stream = "BT /F1 12 Tf 72 720 Td 14 TL\n" + "".join("(%s) Tj T*\n" % l for l in lines) + "ET\n"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        "<< /Length %d >>\nstream\n%sendstream" % (len(stream), stream),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    pdf = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(pdf))
        pdf += ("%d 0 obj\n%s\nendobj\n" % (i, body)).encode("latin-1")
    xref = len(pdf)
    pdf += ("xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)).encode()
    for off in offsets:
        pdf += ("%010d 00000 n \n" % off).encode()
    pdf += ("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, xref)).encode()
    return pdf


class KnowledgeTest(ServerTestCase):

    def ingest(self, client, status=201, **body):
        return self.ok(client, "POST", "/v1/knowledge", body, expect=status)

    def doc(self, client, doc_id, **params):
        return self.ok(client, "GET", "/v1/knowledge/" + doc_id, params=params or None)

    def test_upload_list_context_reingest_and_delete(self):
        s = self.start_server()
        c = s.client()
        made = self.ingest(c, doc_id="returns", content=POLICY, filename="returns.md")
        self.assertFalse(made["replaced"])
        d = made["document"]
        self.assertEqual((d["doc_id"], d["format"], d["title"], d["version"], d["chunks"]),
                         ("returns", "markdown", "Returns policy", 1, 3))
        self.assertTrue(d["created_at"].startswith("20"))
        listed = self.ok(c, "GET", "/v1/knowledge")["documents"]
        self.assertEqual([(x["doc_id"], x["chunks"]) for x in listed], [("returns", 3)])

        # Each chunk cites its title path and where it lies in the upload (code points).
        detail = self.doc(c, "returns")
        self.assertEqual([ch["title_path"] for ch in detail["chunks"]],
                         [["Returns policy"], ["Returns policy", "Refund timing"],
                          ["Returns policy", "损坏的包裹"]])
        for ch in detail["chunks"]:
            self.assertEqual(POLICY[ch["char_start"]:ch["char_end"]], ch["text"])
        self.assertIn("拍下破损", detail["chunks"][2]["text"])

        # Context: the user's memories and the scope's knowledge, each block labelled.
        self.add(c, "alice", "Alice paid with her Visa card", infer=False)
        ctx = self.ok(c, "POST", "/v1/context",
                      {"user_id": "alice", "query": "how long until my refund reaches my card",
                       "token_budget": 400})
        self.assertIn("Relevant memories (most relevant first):", ctx["context"])
        self.assertIn("Relevant knowledge (most relevant first):", ctx["context"])
        self.assertIn("[returns §Returns policy > Refund timing]", ctx["context"])
        self.assertEqual(len(ctx["memories"]), 1)
        self.assertEqual(ctx["knowledge"][0]["citation"], "[returns §Returns policy > Refund timing]")
        self.assertLessEqual(ctx["tokens"], 400)
        only_memories = self.ok(c, "POST", "/v1/context",
                                {"user_id": "alice", "query": "refund card", "sources": ["memories"]})
        self.assertNotIn("knowledge", only_memories)
        self.assertNotIn("Relevant knowledge", only_memories["context"])
        only_knowledge = self.ok(c, "POST", "/v1/search",
                                 {"user_id": "alice", "query": "refund card", "sources": ["knowledge"]})
        self.assertEqual(only_knowledge["results"], [])
        self.assertEqual(only_knowledge["knowledge"][0]["doc_id"], "returns")
        self.fails(c, "POST", "/v1/search", {"user_id": "alice", "query": "x", "sources": ["web"]},
                   status=400, mentions="sources")

        # Failing re-ingests of the same id leave version 1 whole.
        before = self.doc(c, "returns")
        damaged = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer garbage"
        r = c.request("POST", "/v1/knowledge",
                      {"doc_id": "returns", "filename": "returns.pdf",
                       "content_base64": base64.b64encode(damaged).decode()})
        self.assertEqual(r.status, 422, r)
        self.assertIn(self.assert_error_body(r, 422) and r.json()["error"]["code"],
                      ("unreadable_document", "empty_document"))
        self.fails(c, "POST", "/v1/knowledge",
                   {"doc_id": "returns", "filename": "returns.docx", "content_base64": "AAAA"},
                   status=415, code="unsupported_format")
        self.fails(c, "POST", "/v1/knowledge",
                   {"doc_id": "returns", "format": "markdown",
                    "content_base64": base64.b64encode(b"\xff\xfe\x00binary").decode()},
                   status=422, code="unreadable_document")
        self.assertEqual(self.doc(c, "returns"), before)

        # A good re-ingest replaces every chunk at once.
        again = self.ingest(c, status=200, doc_id="returns",
                            content="# Returns policy\n\nRefunds now take 3 days.\n")
        self.assertTrue(again["replaced"])
        self.assertEqual((again["document"]["version"], again["document"]["chunks"]), (2, 1))
        self.assertEqual(again["document"]["created_at"], d["created_at"])
        hits = self.ok(c, "POST", "/v1/search", {"user_id": "alice", "query": "refund days",
                                                 "sources": ["knowledge"]})["knowledge"]
        self.assertEqual([x["text"] for x in hits], ["# Returns policy\n\nRefunds now take 3 days."])

        # A verified hard delete: nothing of it is left in the files (PostgreSQL's files are
        # not Engram's to scan: refused there before anything is deleted).
        if self.pg_database is None:
            gone = self.ok(c, "DELETE", "/v1/knowledge/returns", params={"verify": "true"})
            self.assertTrue(gone["verified"], gone)
            self.assertEqual(gone["traces"], [])
            self.assertGreater(gone["needles"], 0)
        else:
            self.fails(c, "DELETE", "/v1/knowledge/returns", params={"verify": "true"},
                       status=400, mentions="PostgreSQL")
            gone = self.ok(c, "DELETE", "/v1/knowledge/returns")
        self.assertEqual((gone["deleted"], gone["chunks"]), (True, 1))
        self.fails(c, "GET", "/v1/knowledge/returns", status=404)
        self.fails(c, "DELETE", "/v1/knowledge/returns", status=404)
        self.assertEqual(self.ok(c, "GET", "/v1/knowledge")["documents"], [])
        ctx = self.ok(c, "POST", "/v1/context", {"user_id": "alice", "query": "refund card"})
        self.assertNotIn("knowledge", ctx)

    def test_a_pdf_made_here_is_ingested_page_by_page(self):
        s = self.start_server()
        c = s.client()
        pdf = minimal_pdf(["Warranty terms", "Batteries are covered for two years."])
        made = self.ingest(c, filename="warranty-2026.pdf",
                           content_base64=base64.b64encode(pdf).decode())["document"]
        self.assertEqual((made["doc_id"], made["format"], made["chunks"], made["bytes"]),
                         ("warranty-2026", "pdf", 1, len(pdf)))
        chunk = self.doc(c, "warranty-2026")["chunks"][0]
        self.assertEqual(chunk["title_path"], ["page 1"])
        self.assertIn("Batteries are covered for two years.", chunk["text"])
        hits = self.ok(c, "POST", "/v1/search", {"user_id": "bob", "query": "battery warranty years",
                                                 "sources": ["knowledge"]})["knowledge"]
        self.assertEqual(hits[0]["citation"], "[warranty-2026 §page 1]")

    def test_limits_refuse_documents_and_keep_the_stored_version(self):
        slow_dir = os.path.join(self.dir, "slowbin")
        os.mkdir(slow_dir)
        slow = os.path.join(slow_dir, "pdftotext")
        with open(slow, "w") as f:
            f.write("#!/bin/sh\nexec sleep 30\n")
        os.chmod(slow, stat.S_IRWXU)
        env = dict(h.clean_env(), PATH=slow_dir + ":" + os.environ.get("PATH", ""))
        s = self.start_server("--max-document-bytes", "4000", "--parser-timeout-ms", "500", env=env)
        c = s.client()
        self.ingest(c, doc_id="faq", content="# FAQ\n\nOpen on weekdays.")
        self.fails(c, "POST", "/v1/knowledge", {"doc_id": "faq", "content": "x" * 4001},
                   status=413, code="document_too_large")
        pdf = base64.b64encode(minimal_pdf(["slow"])).decode()
        self.fails(c, "POST", "/v1/knowledge", {"doc_id": "faq", "format": "pdf",
                                                "content_base64": pdf},
                   status=422, code="parser_timeout")
        self.fails(c, "POST", "/v1/knowledge", {"doc_id": "faq", "content": "  \n\n "},
                   status=422, code="empty_document")
        self.fails(c, "POST", "/v1/knowledge", {"doc_id": "bad id!", "content": "x"}, status=400,
                   mentions="doc_id")
        self.fails(c, "POST", "/v1/knowledge", {"doc_id": "faq"}, status=400, mentions="content")
        d = self.doc(c, "faq")
        self.assertEqual((d["document"]["version"], d["chunks"][0]["text"]),
                         (1, "# FAQ\n\nOpen on weekdays."))

    def test_server_paths_only_under_the_knowledge_dir(self):
        docs = os.path.join(self.dir, "docs")
        os.mkdir(docs)
        with open(os.path.join(docs, "hours.md"), "w") as f:
            f.write("# Hours\n\nOpen 9 to 5.\n")
        secret = os.path.join(self.dir, "secret.md")
        with open(secret, "w") as f:
            f.write("# Secret\n\nnot for ingestion\n")
        s = self.start_server()
        self.fails(s.client(), "POST", "/v1/knowledge", {"path": os.path.join(docs, "hours.md")},
                   status=403, mentions="--knowledge-dir")
        self.assertEqual(s.stop(), 0)
        s = self.start_server("--knowledge-dir", docs)
        c = s.client()
        made = self.ingest(c, path="hours.md")["document"]
        self.assertEqual((made["doc_id"], made["format"], made["source"]),
                         ("hours", "markdown", "hours.md"))
        for path in (secret, os.path.join(docs, "..", "secret.md"), "/etc/passwd"):
            self.fails(c, "POST", "/v1/knowledge", {"doc_id": "x", "path": path}, status=403)
        os.symlink(secret, os.path.join(docs, "link.md"))
        self.fails(c, "POST", "/v1/knowledge", {"path": "link.md"}, status=403)

    def test_tenants_and_agents_are_isolated(self):
        acme = create_key(self.db, "acme")["secret"]
        globex = create_key(self.db, "globex")["secret"]
        s = self.start_server()
        a, g = s.client(acme), s.client(globex)
        self.ingest(a, doc_id="faq", content="# Shipping\n\nAcme ships parcels on Mondays.")
        self.ingest(a, doc_id="pitch", agent_id="sales",
                    content="# Pitch\n\nAcme parcels ship free for members.")
        self.assertEqual(self.ok(g, "GET", "/v1/knowledge")["documents"], [])
        self.fails(g, "GET", "/v1/knowledge/faq", status=404)
        self.fails(g, "DELETE", "/v1/knowledge/faq", status=404)
        found = self.ok(g, "POST", "/v1/search", {"user_id": "u", "query": "acme parcels ship"})
        self.assertNotIn("knowledge", found)
        # Globex's own document of the same id is its own.
        self.ingest(g, doc_id="faq", content="# Globex\n\nGlobex ships on Fridays.")
        self.assertIn("Mondays", self.doc(a, "faq")["chunks"][0]["text"])
        # The tenant's list is its shared documents; an agent's, its own; searches of an agent
        # see both.
        self.assertEqual([x["doc_id"] for x in self.ok(a, "GET", "/v1/knowledge")["documents"]],
                         ["faq"])
        self.assertEqual([x["doc_id"] for x in self.ok(a, "GET", "/v1/knowledge",
                                                       params={"agent_id": "sales"})["documents"]],
                         ["pitch"])
        hits = self.ok(a, "POST", "/v1/search", {"user_id": "u", "agent_id": "sales",
                                                 "query": "acme parcels ship",
                                                 "sources": ["knowledge"]})["knowledge"]
        self.assertEqual({x["doc_id"] for x in hits}, {"faq", "pitch"})
        hits = self.ok(a, "POST", "/v1/search", {"user_id": "u", "agent_id": "support",
                                                 "query": "acme parcels ship",
                                                 "sources": ["knowledge"]})["knowledge"]
        self.assertEqual({x["doc_id"] for x in hits}, {"faq"})
        self.fails(a, "GET", "/v1/knowledge/pitch", status=404)  # not the tenant's shared one

    def test_the_cli_ingests_what_a_running_server_then_serves(self):
        path = os.path.join(self.dir, "Opening Hours.md")
        with open(path, "w") as f:
            f.write("# Opening hours\n\nThe shop opens at nine on weekdays.\n")
        s = self.start_server()
        r = run_engram(self.db, "--json", "ingest", path, "--agent", "support")
        self.assertEqual(r.returncode, 0, r.stderr)
        made = json.loads(r.stdout)["document"]
        self.assertEqual((made["doc_id"], made["agent_id"]), ("Opening-Hours", "support"))
        # The server sees another process's ingest within about a second.
        c = s.client()
        deadline = 30
        start = time.monotonic()
        while True:
            found = self.ok(c, "POST", "/v1/search", {"user_id": "u", "agent_id": "support",
                                                      "query": "when does the shop open",
                                                      "sources": ["knowledge"]})
            if found.get("knowledge"):
                break
            self.assertLess(time.monotonic() - start, deadline)
            time.sleep(0.2)
        self.assertEqual(found["knowledge"][0]["doc_id"], "Opening-Hours")
        r = run_engram(self.db, "ingest", "--list", "--agent", "support")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"Opening-Hours\tmarkdown\t1 chunks", r.stdout)
        bad = run_engram(self.db, "ingest", os.path.join(self.dir, "notes.docx"))
        self.assertEqual(bad.returncode, 2, bad)


if __name__ == "__main__":
    h.main()
