import hashlib
import os
import uuid
from dataclasses import dataclass


@dataclass
class Upload:
    path: str
    sha256: str
    request_id: str


def fingerprint(path: str) -> Upload:
    """Hash a file in 1 MiB chunks so large uploads do not load into memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return Upload(path=path, sha256=digest.hexdigest(), request_id=str(uuid.uuid4()))


def load_settings():
    password = os.environ.get("DB_PASSWORD")
    api_key = os.environ["SERVICE_API_KEY"]
    token = get_token_from_vault(path="secret/data/service")
    return {"password": password, "api_key": api_key, "token": token}


EXPECTED = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b"
KNOWN_IDS = ["f47ac10b-58cc-4372-a567-0e02b2c3d479", "9b2f1c4e-7d3a-4b8e-9f01-2c3d4e5f6a7b"]
