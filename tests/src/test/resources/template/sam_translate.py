# Transforms template.yaml with AWS's SAM translator (the library behind CloudFormation's
# AWS::Serverless transform) for several sets of parameter values, as a deploy with each set
# would, and runs the inline handlers of custom resources; for SamTranslator (tests module).
# Run with scripts/sam --python, whose Python has samtranslator and cfn-lint.
#
#   sam_translate.py translate REQUEST.json ANSWER.json
#     REQUEST: {"template": path, "region": "us-east-1", "artifact": "jar-1",
#               "parameterSets": [{"MaxRetries": "3", ...}, ...]}
#     ANSWER:  {"translatorVersion": "...", "templates": [translated template, ...],
#               "createOnly": {"AWS::Lambda::Version": ["Description", ...], ...}}
#   sam_translate.py translate-each REQUEST.json ANSWER.json
#     REQUEST: {"templates": [path, ...], "region": ..., "artifact": ..., "parameterSets": [...]}
#     ANSWER:  {"translatorVersion": "...", "translations": [[translated template, ...], ...]}:
#              each template for each parameter set, without the schemas' createOnly
#   sam_translate.py handle REQUEST.json ANSWER.json
#     REQUEST: {"code": inline ZipFile source, "handler": "index.handler", "events": [event, ...]}
#     ANSWER:  {"handled": n}; each event's answer goes where its ResponseURL says
import copy
import importlib.util
import json
import os
import sys
import tempfile


class NoManagedPolicies:
    """The template names AWS-managed policies by ARN; nothing needs looking up."""

    def load(self):
        return {}


def transform_all(path, request):
    """The template at path, transformed for each parameter set of the request."""
    os.environ.setdefault("AWS_DEFAULT_REGION", request["region"])
    from samtranslator.translator.transform import transform
    from samtranslator.yaml_helper import yaml_parse

    with open(path, encoding="utf-8") as f:
        template = yaml_parse(f.read())
    # What `sam package` does: a function's local CodeUri becomes the S3 object of its zip,
    # whose key names the artifact (the same jar, the same key).
    for resource in template.get("Resources", {}).values():
        properties = resource.get("Properties", {})
        if resource.get("Type") == "AWS::Serverless::Function" and isinstance(
            properties.get("CodeUri"), str
        ):
            properties["CodeUri"] = "s3://outbox-artifacts/%s/%s.zip" % (
                properties["CodeUri"],
                request["artifact"],
            )
    return [
        transform(copy.deepcopy(template), dict(parameters), NoManagedPolicies())
        for parameters in request["parameterSets"]
    ]


def translate_each(request):
    from samtranslator import __version__ as translator_version

    return {
        "translatorVersion": translator_version,
        "translations": [transform_all(path, request) for path in request["templates"]],
    }


def translate(request):
    from samtranslator import __version__ as translator_version
    from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

    templates = transform_all(request["template"], request)
    create_only = {}
    for translated in templates:
        for resource in translated.get("Resources", {}).values():
            kind = resource["Type"]
            if kind in create_only or not kind.startswith("AWS::"):
                continue
            schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema(request["region"], kind).schema
            create_only[kind] = sorted(
                {p.split("/")[2] for p in schema.get("createOnlyProperties", [])}
            )
    return {
        "translatorVersion": translator_version,
        "templates": templates,
        "createOnly": create_only,
    }


def handle(request):
    module, function = request["handler"].split(".")
    with tempfile.TemporaryDirectory() as code_dir:
        path = os.path.join(code_dir, module + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(request["code"])
        spec = importlib.util.spec_from_file_location(module, path)
        handler_module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(handler_module)
        handler = getattr(handler_module, function)
        for event in request["events"]:
            handler(event, None)
    return {"handled": len(request["events"])}


def main():
    verb, request_file, answer_file = sys.argv[1:4]
    with open(request_file, encoding="utf-8") as f:
        request = json.load(f)
    answer = {"translate": translate, "translate-each": translate_each, "handle": handle}[verb](
        request
    )
    with open(answer_file, "w", encoding="utf-8") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
