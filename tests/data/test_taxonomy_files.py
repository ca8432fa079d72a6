"""Taxonomy files: JSON and SKOS in RDF/XML (sdcflow.data.taxonomy)."""

import json

from sdcflow.data.taxonomy import resolve_taxonomy

SKOS = """<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:skos="http://www.w3.org/2004/02/skos/core#">
  <skos:Concept rdf:about="http://example.org/jobs#health">
    <skos:prefLabel xml:lang="en">Health professional</skos:prefLabel>
    <skos:narrower rdf:resource="http://example.org/jobs#nurse"/>
  </skos:Concept>
  <skos:Concept rdf:about="http://example.org/jobs#nurse">
    <skos:prefLabel xml:lang="en">Nurse</skos:prefLabel>
  </skos:Concept>
  <rdf:Description rdf:about="http://example.org/jobs#doctor">
    <rdf:type rdf:resource="http://www.w3.org/2004/02/skos/core#Concept"/>
    <skos:broader rdf:resource="http://example.org/jobs#health"/>
  </rdf:Description>
  <skos:Concept rdf:about="http://example.org/jobs#cook"/>
</rdf:RDF>
"""


def test_skos_rdf_xml(tmp_path):
    (tmp_path / "jobs.rdf").write_text(SKOS, encoding="utf-8")
    resolved, message = resolve_taxonomy({"file": "jobs.rdf"}, tmp_path)
    assert message is None
    # Nurse under Health professional by skos:narrower, the doctor (no label: the end of
    # its URI) by skos:broader; two top concepts (Health professional, cook) join under '*'
    assert resolved == {"parents": {"Health professional": "*", "Nurse": "Health professional",
                                    "doctor": "Health professional", "cook": "*", "*": None}}


def test_skos_problems(tmp_path):
    (tmp_path / "bad.rdf").write_text(SKOS.replace("jobs#health\"/>", "jobs#nowhere\"/>"))
    assert "which is no concept of the file" in resolve_taxonomy({"file": "bad.rdf"},
                                                                 tmp_path)[1]
    (tmp_path / "broken.rdf").write_text("<rdf:RDF")
    assert resolve_taxonomy({"file": "broken.rdf"}, tmp_path)[1] == (
        "the taxonomy file broken.rdf: it is not XML (unclosed token, line 1, column 1)")
    (tmp_path / "jobs.ttl").write_text("")
    assert "convert Turtle" in resolve_taxonomy({"file": "jobs.ttl"}, tmp_path)[1]


def test_json_file_forms(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps({"tree": {"All": ["a", "b"]}}))
    assert resolve_taxonomy({"file": "t.json"}, tmp_path) == (
        {"parents": {"All": None, "a": "All", "b": "All"}}, None)
    (tmp_path / "u.json").write_text(json.dumps({"levels": {}}))
    assert "must hold one JSON object with one key" in resolve_taxonomy({"file": "u.json"},
                                                                        tmp_path)[1]
