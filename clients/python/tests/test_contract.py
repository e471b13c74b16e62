"""The client cannot drift from docs/openapi.json: its route table is exactly the document's,
each route has its method (the operationId in snake_case), and each result class has the
fields of the schema it mirrors."""

import dataclasses
import json
import os
import re
import unittest

from engram_client import EngramClient, ROUTES, models

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs",
                    "openapi.json")


def snake(operation_id):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", operation_id).lower()


def resolve(doc, pointer):
    """The value at a JSON pointer (#/a/b~1c) of doc, following $ref and a one-item allOf."""
    node = doc
    for token in pointer.lstrip("#/").split("/"):
        node = node[token.replace("~1", "/").replace("~0", "~")]
        while isinstance(node, dict) and ("$ref" in node or len(node.get("allOf", [])) == 1):
            node = resolve(doc, node["$ref"]) if "$ref" in node else node["allOf"][0]
    return node


class ContractTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(SPEC, encoding="utf-8") as f:
            cls.spec = json.load(f)

    def operations(self):
        for path, item in self.spec["paths"].items():
            for method, op in item.items():
                if method in ("get", "post", "put", "patch", "delete"):
                    yield op["operationId"], method.upper(), path

    def test_the_route_table_is_the_documents(self):
        documented = {op: (method, path) for op, method, path in self.operations()}
        self.assertGreaterEqual(len(documented), 30)
        self.assertEqual(ROUTES, documented)

    def test_every_route_has_a_typed_method(self):
        for op, method, path in self.operations():
            fn = getattr(EngramClient, snake(op), None)
            self.assertTrue(callable(fn), "no method %s for %s %s" % (snake(op), method, path))
            self.assertIn("return", fn.__annotations__, "%s has no result type" % snake(op))

    def test_result_classes_have_the_schemas_fields(self):
        for cls in models.all_models():
            schema = resolve(self.spec, cls.__schema__)
            fields = {f.name for f in dataclasses.fields(cls)} - {"extra"}
            self.assertEqual(fields, set(schema["properties"]), cls.__name__)

    def test_the_version_is_the_apis(self):
        import engram_client
        self.assertEqual(engram_client.__version__, self.spec["info"]["version"])
