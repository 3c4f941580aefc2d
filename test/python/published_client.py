"""A client of the vendor's published contract, written against the Python stubs grpc_tools
generates from proto/ (test/helpers/python-stubs.ts): the vendor's message classes and
service stubs, grpcio's channel, nothing of this project's. Runs one scenario against serve
and prints one JSON line per step: its name, and the answer as proto3 JSON (json_format) or
the failure's code, message and google.rpc.Status details (grpc-status-details-bin).

argv: the generated modules' directory, serve's host:port, a bearer token, the scenario's
parameters as JSON ({"org", "identity", "role"}, or {"scenario": "registry", "group"}). Before each version's deletes it prints a
`paused` step and waits for a line on stdin.
"""
import importlib
import json
import os
import sys

import platform as _stdlib_platform

OUT = sys.argv[1]
sys.path.insert(0, OUT)
# The vendor's shared files live in a top-level `platform/` package (platform/common/v1/…),
# which is also the name of Python's standard `platform` module, already imported by the time
# anything runs. Giving the standard module the generated package's path lets
# `platform.common.v1.uidp.platform_pb2` resolve while the standard module stays as it is.
_stdlib_platform.__path__ = [os.path.join(OUT, "platform")]

import grpc  # noqa: E402
from google.protobuf import field_mask_pb2, json_format  # noqa: E402
from google.rpc import error_details_pb2, status_pb2  # noqa: E402

uidp = importlib.import_module("platform.common.v1.uidp.platform_pb2")

TARGET, TOKEN, PARAMS = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
METADATA = (("authorization", "Bearer " + TOKEN),)
DETAILS = (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest, error_details_pb2.PreconditionFailure)


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def as_json(message):
    return json_format.MessageToDict(message)


def failure(err):
    """The RPC's code and message, and the google.rpc.Status serve sent in the trailers."""
    status = None
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            decoded = status_pb2.Status.FromString(value)
            details = []
            for any_detail in decoded.details:
                for cls in DETAILS:
                    if any_detail.Is(cls.DESCRIPTOR):
                        detail = cls()
                        any_detail.Unpack(detail)
                        details.append({"@type": cls.DESCRIPTOR.full_name, **as_json(detail)})
            status = {"code": decoded.code, "message": decoded.message, "details": details}
    return {"code": err.code().value[0], "message": err.details(), "status": status}


def attempt(step, call):
    try:
        emit(step, answer=as_json(call()))
    except grpc.RpcError as err:
        emit(step, error=failure(err))


def iam(version, name):
    return (importlib.import_module(f"chainguard.platform.iam.{version}.{name}_pb2"),
            importlib.import_module(f"chainguard.platform.iam.{version}.{name}_pb2_grpc"))


def registry(channel):
    """ReposService's create and list in a group, and PingService without a token."""
    repos = importlib.import_module("chainguard.platform.registry.v2.repos_pb2")
    repos_grpc = importlib.import_module("chainguard.platform.registry.v2.repos_pb2_grpc")
    ping = importlib.import_module("chainguard.platform.ping.v2.ping_pb2")
    ping_grpc = importlib.import_module("chainguard.platform.ping.v2.ping_pb2_grpc")
    r = repos_grpc.ReposServiceStub(channel)
    attempt("CreateRepo", lambda: r.CreateRepo(repos.CreateRepoRequest(parent=PARAMS["group"], repo=repos.Repo(name="py-repo", bundles=["py"])), metadata=METADATA))
    attempt("ListRepos", lambda: r.ListRepos(repos.ListReposRequest(uidp=uidp.UIDPFilter(children_of=PARAMS["group"])), metadata=METADATA))
    attempt("Ping", lambda: ping_grpc.PingServiceStub(channel).Ping(ping.PingRequest()))


with grpc.insecure_channel(TARGET) as channel:
    if PARAMS.get("scenario") == "registry":
        registry(channel)
        sys.exit(0)
    org = PARAMS["org"]
    for version in ("v2", "v2beta1"):
        groups, groups_grpc = iam(version, "groups")
        bindings, bindings_grpc = iam(version, "role_bindings")
        g = groups_grpc.GroupsServiceStub(channel)
        b = bindings_grpc.RoleBindingsServiceStub(channel)
        name = "py-" + version

        made = g.CreateGroup(groups.CreateGroupRequest(parent=org, group=groups.Group(name=name, description="from the generated stubs")), metadata=METADATA)
        emit("CreateGroup", version=version, answer=as_json(made))
        attempt("GetGroup", lambda: g.GetGroup(groups.GetGroupRequest(uid=made.uid), metadata=METADATA))
        attempt("ListGroups", lambda: g.ListGroups(groups.ListGroupsRequest(uidp=uidp.UIDPFilter(children_of=org), name=name), metadata=METADATA))
        # The provider's update: the whole group, the mask naming what changes.
        attempt("UpdateGroup", lambda: g.UpdateGroup(groups.UpdateGroupRequest(
            group=groups.Group(uid=made.uid, name=name, description="changed by mask", verified=False),
            update_mask=field_mask_pb2.FieldMask(paths=["description"])), metadata=METADATA))
        binding = b.CreateRoleBinding(bindings.CreateRoleBindingRequest(
            parent=made.uid, role_binding=bindings.RoleBinding(identity_uid=PARAMS["identity"], role_uid=PARAMS["role"])), metadata=METADATA)
        emit("CreateRoleBinding", version=version, answer=as_json(binding))
        attempt("GetGroup missing", lambda: g.GetGroup(groups.GetGroupRequest(uid=org + "/0000000000000000"), metadata=METADATA))
        attempt("CreateGroup invalid", lambda: g.CreateGroup(groups.CreateGroupRequest(parent=org, group=groups.Group(name="Not A Valid Name!")), metadata=METADATA))
        # The test reads what serve holds over REST, then lets the deletes go.
        emit("paused", version=version)
        sys.stdin.readline()
        attempt("DeleteRoleBinding", lambda: b.DeleteRoleBinding(bindings.DeleteRoleBindingRequest(uid=binding.uid), metadata=METADATA))
        attempt("DeleteGroup", lambda: g.DeleteGroup(groups.DeleteGroupRequest(uid=made.uid), metadata=METADATA))
