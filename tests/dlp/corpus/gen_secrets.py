"""Secret token formats, written from the vendors' public documentation of their key formats
and from widely-known prefixes; NOT derived from the project's rule packs, so that scoring the
rules on this corpus is not circular. Every value is random: none of them is a live credential.

Each entry: (service, kind, factory, keyword) where factory(rng) returns the token and keyword is
the variable name a user would store it under (used for context; prefix-strong tokens are also
placed in contexts without any keyword).
"""

import base64
import hashlib
import json
import string

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B32 = UP + "234567"
B64 = AN + "+/"
URL64 = AN + "-_"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def r(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def uuid(rng):
    h = r(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(rng, claims=None):
    header = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    body = claims or {
        "sub": uuid(rng),
        "iat": 1764000000 + rng.randrange(10**6),
        "exp": 1766000000 + rng.randrange(10**6),
        "scope": rng.choice(["read write", "admin", "api", "user"]),
    }
    sig = bytes(rng.randrange(256) for _ in range(rng.choice([32, 64])))
    return ".".join([b64url(json.dumps(header).encode()), b64url(json.dumps(body).encode()),
                     b64url(sig)])


def b58check(payload):
    chk = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    data = payload + chk
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, rem = divmod(n, 58)
        out = B58[rem] + out
    pad = len(data) - len(data.lstrip(b"\0"))
    return "1" * pad + out


def wif(rng, compressed):
    key = bytes(rng.randrange(256) for _ in range(32))
    return b58check(b"\x80" + key + (b"\x01" if compressed else b""))


def pem(rng, label, nbytes):
    body = base64.b64encode(bytes(rng.randrange(256) for _ in range(nbytes))).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def openssh_key(rng):
    blob = b"openssh-key-v1\0" + bytes(rng.randrange(256) for _ in range(300))
    body = base64.b64encode(blob).decode()
    lines = [body[i:i + 70] for i in range(0, len(body), 70)]
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines) + \
        "\n-----END OPENSSH PRIVATE KEY-----"


def pgp_key(rng):
    body = base64.b64encode(bytes(rng.randrange(256) for _ in range(240))).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(lines) + "\n=" +
            r(rng, B64, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----")


def pw(rng, n=None):
    """A human-chosen-looking but strong password."""
    n = n or rng.randrange(12, 22)
    return r(rng, AN, n - 2) + rng.choice("!#%*-_.") + r(rng, DG, 1)


def gcp_sa(rng):
    proj = rng.choice(["acme-prod", "billing-svc", "data-lake-42", "ml-train"])
    key = pem(rng, "PRIVATE KEY", 630)
    return json.dumps({
        "type": "service_account", "project_id": proj, "private_key_id": r(rng, HEX, 40),
        "private_key": key + "\n",
        "client_email": f"deployer@{proj}.iam.gserviceaccount.com",
        "client_id": r(rng, DG, 21), "token_uri": "https://oauth2.googleapis.com/token"})


def azure_conn(rng):
    acct = r(rng, LO + DG, 12)
    key = base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode()
    return (f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};"
            "EndpointSuffix=core.windows.net")


def azure_sas(rng):
    sig = base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode()
    sig = sig.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    acct = r(rng, LO, 10)
    return (f"https://{acct}.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=co"
            f"&sp=rwdlac&se=2026-12-31T23:59:59Z&st=2026-11-01T00:00:00Z&spr=https&sig={sig}")


def azure_sb(rng):
    key = base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode()
    return (f"Endpoint=sb://{r(rng, LO, 8)}.servicebus.windows.net/;SharedAccessKeyName="
            f"RootManageSharedAccessKey;SharedAccessKey={key}")


def azure_cosmos(rng):
    key = base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode()
    return f"AccountEndpoint=https://{r(rng, LO, 9)}.documents.azure.com:443/;AccountKey={key};"


def conn(scheme, default_port, path="/app"):
    def f(rng):
        user = rng.choice(["admin", "app", "svc_user", "deploy", "root", "etl"])
        host = rng.choice(["db.internal", "10.0.3.17", "prod-db.example.net", "cache.local"])
        return f"{scheme}://{user}:{pw(rng)}@{host}:{default_port}{path}"
    return f


def ftp_url(rng):
    return f"ftp://backup:{pw(rng)}@files.example.org/incoming/"


def mongo_srv(rng):
    return (f"mongodb+srv://app:{pw(rng)}@cluster0.{r(rng, LO + DG, 5)}.mongodb.net/"
            "prod?retryWrites=true&w=majority")


def redis_nouser(rng):
    return f"redis://:{pw(rng)}@redis.internal:6379/0"


def jdbc(rng):
    return (f"jdbc:postgresql://db.internal:5432/orders?user=orders&password={pw(rng)}"
            "&ssl=true")


def jdbc_mysql(rng):
    return f"jdbc:mysql://mysql.internal:3306/shop?user=shop&password={pw(rng)}"


def mssql_ado(rng):
    return (f"Server=tcp:sql-{r(rng, LO, 6)}.database.windows.net,1433;Initial Catalog=sales;"
            f"User ID=sqladmin;Password={pw(rng)};Encrypt=True;")


def odbc(rng):
    return ("Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql.internal,1433;"
            f"Database=hr;Uid=hr_app;Pwd={pw(rng)};Encrypt=yes;")


def https_basic(rng):
    return f"https://ci-bot:{pw(rng)}@git.example.com/org/repo.git"


def ssh_url(rng):
    return f"ssh://deploy:{pw(rng)}@bastion.example.net:22"


def amqp(rng):
    return f"amqps://worker:{pw(rng)}@mq.example.net:5671/vhost"


def slack_webhook(rng):
    return (f"https://hooks.slack.com/services/T{r(rng, UP + DG, 8)}/B{r(rng, UP + DG, 10)}/"
            f"{r(rng, AN, 24)}")


def discord_webhook(rng):
    return (f"https://discord.com/api/webhooks/{r(rng, DG, 19)}/{r(rng, URL64, 68)}")


def teams_webhook(rng):
    return (f"https://{r(rng, LO, 8)}.webhook.office.com/webhookb2/{uuid(rng)}@{uuid(rng)}/"
            f"IncomingWebhook/{r(rng, HEX, 32)}/{uuid(rng)}")


def discord_bot(rng):
    return f"{rng.choice('MN')}{r(rng, AN, 23)}.{r(rng, URL64, 6)}.{r(rng, URL64, 27)}"


def grafana_cloud(rng):
    inner = json.dumps({"o": r(rng, DG, 6), "n": "deploy", "k": r(rng, AN, 24),
                        "m": {"r": "prod-us-east-0"}}, separators=(",", ":"))
    return "glc_" + base64.b64encode(inner.encode()).decode().rstrip("=")


def grafana_legacy(rng):
    inner = json.dumps({"k": r(rng, AN, 32), "n": "ci", "id": rng.randrange(1, 99)},
                       separators=(",", ":"))
    return base64.b64encode(inner.encode()).decode()


def sentry_org(rng):
    inner = json.dumps({"iat": 1764000000.1, "url": "https://sentry.io", "region_url":
                        "https://us.sentry.io", "org": "acme"}, separators=(",", ":"))
    return "sntrys_" + base64.b64encode(inner.encode()).decode().rstrip("=") + "_" + r(rng, AN, 43)


def mapbox_secret(rng):
    inner = json.dumps({"u": "acme", "a": r(rng, AN, 25)}, separators=(",", ":"))
    return "sk." + b64url(inner.encode()) + "." + r(rng, URL64, 22)


def atlassian(rng):
    return "ATATT3xFfGF0" + r(rng, URL64, 170) + "=" + r(rng, HEX.upper(), 8)


def pypi(rng):
    return "pypi-AgEIcHlwaS5vcmc" + r(rng, URL64, 150)


def age_key(rng):
    return "AGE-SECRET-KEY-1" + r(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58)


def fcm(rng):
    return f"AAAA{r(rng, URL64, 7)}:APA91b{r(rng, URL64, 134)}"


def twitter_bearer(rng):
    return "AAAAAAAAAAAAAAAAAAAAA" + r(rng, AN, 25) + "%3D" + r(rng, AN, 50)


def fb_token(rng):
    return "EAA" + r(rng, AN, 4) + "ZCZBZA" + r(rng, AN, 150)


def cloudinary(rng):
    return f"cloudinary://{r(rng, DG, 15)}:{r(rng, URL64, 27)}@{r(rng, LO, 8)}"


def braintree(rng):
    return f"access_token$production${r(rng, LO + DG, 16)}${r(rng, HEX, 32)}"


def k8s_dockercfg(rng):
    auth = base64.b64encode(f"ci-robot:{pw(rng)}".encode()).decode()
    return json.dumps({"auths": {"registry.example.com": {"auth": auth}}})


def htpasswd(rng):
    return f"admin:{pw(rng)}"


def p(prefix, alphabet, n, suffix=""):
    return lambda rng: prefix + r(rng, alphabet, n) + suffix


def kw(alphabet, n):
    return lambda rng: r(rng, alphabet, n)


def two(fmt, *parts):
    def f(rng):
        return fmt.format(*[r(rng, a, n) for a, n in parts])
    return f


# (service, kind, factory, env-var name, prefix_strong)
SECRETS = [
    # --- cloud
    ("aws", "access_key_id", p("AKIA", B32, 16), "AWS_ACCESS_KEY_ID", True),
    ("aws", "session_key_id", p("ASIA", B32, 16), "AWS_ACCESS_KEY_ID", True),
    ("aws", "secret_access_key", kw(AN + "+/", 40), "AWS_SECRET_ACCESS_KEY", False),
    ("gcp", "api_key", p("AIza", URL64, 35), "GOOGLE_API_KEY", True),
    ("gcp", "oauth_client_secret", p("GOCSPX-", URL64, 28), "GOOGLE_CLIENT_SECRET", True),
    ("gcp", "oauth_access_token", p("ya29.", URL64, 120), "GOOGLE_ACCESS_TOKEN", True),
    ("gcp", "service_account_json", gcp_sa, "GOOGLE_APPLICATION_CREDENTIALS_JSON", True),
    ("azure", "storage_connection_string", azure_conn, "AZURE_STORAGE_CONNECTION_STRING", True),
    ("azure", "sas_url", azure_sas, "AZURE_SAS_URL", True),
    ("azure", "service_bus_connection", azure_sb, "SERVICEBUS_CONNECTION", True),
    ("azure", "cosmos_connection", azure_cosmos, "COSMOS_CONNECTION", True),
    ("azure", "ad_client_secret", two("{}8Q~{}", (AN, 3), (AN + "_~.-", 31)),
     "AZURE_CLIENT_SECRET", True),
    ("azure", "devops_pat", kw(LO + "234567", 52), "AZURE_DEVOPS_PAT", False),
    ("alibaba", "access_key_id", p("LTAI", AN, 20), "ALIBABA_CLOUD_ACCESS_KEY_ID", True),
    ("tencent", "secret_id", p("AKID", AN, 32), "TENCENTCLOUD_SECRET_ID", True),
    ("ibm", "cloud_api_key", kw(URL64, 44), "IBMCLOUD_API_KEY", False),
    ("oracle", "oci_api_private_key", lambda g: pem(g, "PRIVATE KEY", 1200), "OCI_KEY", True),
    ("digitalocean", "personal_token", p("dop_v1_", HEX, 64), "DIGITALOCEAN_TOKEN", True),
    ("digitalocean", "oauth_token", p("doo_v1_", HEX, 64), "DO_OAUTH_TOKEN", True),
    ("digitalocean", "refresh_token", p("dor_v1_", HEX, 64), "DO_REFRESH_TOKEN", True),
    ("linode", "api_token", kw(HEX, 64), "LINODE_TOKEN", False),
    ("hetzner", "api_token", kw(AN, 64), "HCLOUD_TOKEN", False),
    ("scaleway", "access_key", p("SCW", UP + DG, 17), "SCW_ACCESS_KEY", True),
    ("scaleway", "secret_key", uuid, "SCW_SECRET_KEY", False),
    ("ovh", "application_secret", kw(AN, 32), "OVH_APPLICATION_SECRET", False),
    ("cloudflare", "api_token", kw(URL64, 40), "CLOUDFLARE_API_TOKEN", False),
    ("cloudflare", "origin_ca_key", p("v1.0-", HEX, 146), "CF_ORIGIN_CA_KEY", True),
    ("fly", "access_token", p("fo1_", URL64, 43), "FLY_ACCESS_TOKEN", True),
    ("fly", "macaroon_token", lambda g: "FlyV1 fm2_" + r(g, B64, 200), "FLY_API_TOKEN", True),
    ("heroku", "api_key_v2", p("HRKU-", URL64, 60), "HEROKU_API_KEY", True),
    ("heroku", "api_key_legacy", uuid, "HEROKU_API_KEY", False),
    ("vercel", "access_token", kw(AN, 24), "VERCEL_TOKEN", False),
    ("netlify", "personal_token", p("nfp_", AN, 36), "NETLIFY_AUTH_TOKEN", True),
    ("render", "api_key", p("rnd_", AN, 32), "RENDER_API_KEY", True),
    ("railway", "api_token", uuid, "RAILWAY_TOKEN", False),
    ("akamai", "client_token", two("akab-{}-{}", (LO + DG, 16), (LO + DG, 16)),
     "AKAMAI_CLIENT_TOKEN", True),
    ("fastly", "api_token", kw(URL64, 32), "FASTLY_API_TOKEN", False),
    ("pulumi", "access_token", p("pul-", HEX, 40), "PULUMI_ACCESS_TOKEN", True),
    ("terraform", "cloud_token", two("{}.atlasv1.{}", (AN, 14), (URL64, 67)), "TFE_TOKEN", True),
    ("hashicorp_vault", "service_token", p("hvs.", URL64, 90), "VAULT_TOKEN", True),
    ("hashicorp_vault", "batch_token", p("hvb.", URL64, 138), "VAULT_TOKEN", True),
    ("doppler", "personal_token", p("dp.pt.", AN, 43), "DOPPLER_TOKEN", True),
    ("doppler", "service_token", p("dp.st.", AN, 43), "DOPPLER_TOKEN", True),
    ("doppler", "service_account_token", p("dp.sa.", AN, 43), "DOPPLER_TOKEN", True),
    ("doppler", "cli_token", p("dp.ct.", AN, 43), "DOPPLER_TOKEN", True),
    ("onepassword", "service_account_token", p("ops_eyJ", URL64, 250), "OP_SERVICE_ACCOUNT_TOKEN",
     True),
    ("age", "secret_key", age_key, "SOPS_AGE_KEY", True),
    # --- VCS
    ("github", "classic_pat", p("ghp_", AN, 36), "GITHUB_TOKEN", True),
    ("github", "fine_grained_pat", two("github_pat_{}_{}", (AN, 22), (AN, 59)), "GH_TOKEN", True),
    ("github", "oauth_token", p("gho_", AN, 36), "GITHUB_OAUTH_TOKEN", True),
    ("github", "user_to_server", p("ghu_", AN, 36), "GITHUB_TOKEN", True),
    ("github", "server_to_server", p("ghs_", AN, 36), "GITHUB_TOKEN", True),
    ("github", "refresh_token", p("ghr_", AN, 76), "GITHUB_REFRESH_TOKEN", True),
    ("gitlab", "personal_token", p("glpat-", URL64, 20), "GITLAB_TOKEN", True),
    ("gitlab", "deploy_token", p("gldt-", URL64, 20), "GITLAB_DEPLOY_TOKEN", True),
    ("gitlab", "pipeline_trigger", p("glptt-", HEX, 40), "GITLAB_TRIGGER_TOKEN", True),
    ("gitlab", "runner_token", p("glrt-", URL64, 20), "RUNNER_TOKEN", True),
    ("gitlab", "runner_registration", p("GR1348941", URL64, 20), "REGISTRATION_TOKEN", True),
    ("gitlab", "ci_build_token", p("glcbt-", URL64, 20), "CI_JOB_TOKEN", True),
    ("gitlab", "feed_token", p("glft-", URL64, 20), "GITLAB_FEED_TOKEN", True),
    ("gitlab", "incoming_mail_token", p("glimt-", URL64, 25), "GITLAB_MAIL_TOKEN", True),
    ("gitlab", "oauth_app_secret", p("gloas-", HEX, 64), "GITLAB_OAUTH_SECRET", True),
    ("gitlab", "scim_token", p("glsoat-", URL64, 20), "GITLAB_SCIM_TOKEN", True),
    ("gitlab", "agent_token", p("glagent-", URL64, 50), "GITLAB_AGENT_TOKEN", True),
    ("gitlab", "feature_flag_token", p("glffct-", URL64, 20), "UNLEASH_TOKEN", True),
    ("bitbucket", "app_password", two("ATBB{}{}", (AN, 28), (HEX.upper(), 8)),
     "BITBUCKET_APP_PASSWORD", True),
    ("sourcegraph", "access_token", p("sgp_", HEX, 40), "SRC_ACCESS_TOKEN", True),
    ("gitea", "access_token", kw(HEX, 40), "GITEA_TOKEN", False),
    # --- CI/CD
    ("circleci", "personal_token", two("CCIPAT_{}_{}", (AN, 22), (HEX, 40)), "CIRCLE_TOKEN", True),
    ("buildkite", "api_token", p("bkua_", HEX, 40), "BUILDKITE_API_TOKEN", True),
    ("travis", "api_token", kw(URL64, 22), "TRAVIS_API_TOKEN", False),
    ("sonarqube", "user_token", p("squ_", HEX, 40), "SONAR_TOKEN", True),
    ("sonarqube", "project_token", p("sqp_", HEX, 40), "SONAR_TOKEN", True),
    ("codecov", "upload_token", uuid, "CODECOV_TOKEN", False),
    ("octopus", "api_key", p("API-", UP + DG, 26), "OCTOPUS_API_KEY", True),
    ("snyk", "api_token", uuid, "SNYK_TOKEN", False),
    ("harness", "pat", two("pat.{}.{}.{}", (URL64, 22), (HEX, 24), (AN, 20)), "HARNESS_TOKEN",
     True),
    ("postman", "api_key", two("PMAK-{}-{}", (HEX, 24), (HEX, 34)), "POSTMAN_API_KEY", True),
    ("infracost", "api_key", p("ico-", AN, 32), "INFRACOST_API_KEY", True),
    # --- package registries
    ("npm", "access_token", p("npm_", AN, 36), "NPM_TOKEN", True),
    ("pypi", "upload_token", pypi, "PYPI_API_TOKEN", True),
    ("rubygems", "api_key", p("rubygems_", HEX, 48), "GEM_HOST_API_KEY", True),
    ("nuget", "api_key", p("oy2", LO + DG, 43), "NUGET_API_KEY", True),
    ("dockerhub", "personal_token", p("dckr_pat_", URL64, 27), "DOCKERHUB_TOKEN", True),
    ("dockerhub", "org_token", p("dckr_oat_", URL64, 32), "DOCKERHUB_TOKEN", True),
    ("jfrog", "api_key", p("AKCp", AN, 69), "ARTIFACTORY_API_KEY", True),
    ("jfrog", "reference_token", p("cmVmdGtuOjAxOj", AN, 50), "JFROG_ACCESS_TOKEN", True),
    ("crates", "api_token", p("cio", AN, 32), "CARGO_REGISTRY_TOKEN", True),
    ("clojars", "deploy_token", p("CLOJARS_", HEX, 60), "CLOJARS_PASSWORD", True),
    ("docker", "config_auth", k8s_dockercfg, "DOCKER_AUTH_CONFIG", True),
    # --- payment
    ("stripe", "secret_key_live", p("sk_live_", AN, 99), "STRIPE_SECRET_KEY", True),
    ("stripe", "secret_key_test", p("sk_test_", AN, 99), "STRIPE_SECRET_KEY", True),
    ("stripe", "restricted_key", p("rk_live_", AN, 99), "STRIPE_RESTRICTED_KEY", True),
    ("stripe", "webhook_secret", p("whsec_", AN, 32), "STRIPE_WEBHOOK_SECRET", True),
    ("square", "access_token", p("EAAA", URL64, 60), "SQUARE_ACCESS_TOKEN", True),
    ("square", "oauth_secret", p("sq0csp-", URL64, 43), "SQUARE_APP_SECRET", True),
    ("paypal", "braintree_token", braintree, "BRAINTREE_ACCESS_TOKEN", True),
    ("razorpay", "key_id", p("rzp_live_", AN, 14), "RAZORPAY_KEY_ID", True),
    ("flutterwave", "secret_key", p("FLWSECK-", HEX, 32, "-X"), "FLW_SECRET_KEY", True),
    ("paystack", "secret_key", p("sk_live_", HEX, 40), "PAYSTACK_SECRET_KEY", True),
    ("mollie", "live_key", p("live_", AN, 30), "MOLLIE_API_KEY", True),
    ("adyen", "api_key", p("AQE", URL64, 100), "ADYEN_API_KEY", True),
    ("plaid", "secret", kw(HEX, 30), "PLAID_SECRET", False),
    ("coinbase", "api_secret", kw(AN, 32), "COINBASE_API_SECRET", False),
    ("shippo", "live_token", p("shippo_live_", HEX, 40), "SHIPPO_API_TOKEN", True),
    ("easypost", "api_key", p("EZAK", AN, 54), "EASYPOST_API_KEY", True),
    ("duffel", "live_token", p("duffel_live_", URL64, 43), "DUFFEL_ACCESS_TOKEN", True),
    # --- messaging and email
    ("slack", "bot_token", two("xoxb-{}-{}-{}", (DG, 12), (DG, 13), (AN, 24)), "SLACK_BOT_TOKEN",
     True),
    ("slack", "user_token", two("xoxp-{}-{}-{}-{}", (DG, 12), (DG, 12), (DG, 13), (HEX, 32)),
     "SLACK_USER_TOKEN", True),
    ("slack", "app_token", two("xapp-1-A{}-{}-{}", (UP + DG, 10), (DG, 13), (HEX, 64)),
     "SLACK_APP_TOKEN", True),
    ("slack", "config_token", two("xoxe.xoxp-1-{}", (AN, 160)), "SLACK_CONFIG_TOKEN", True),
    ("slack", "refresh_token", two("xoxe-1-{}", (AN, 140)), "SLACK_REFRESH_TOKEN", True),
    ("slack", "webhook_url", slack_webhook, "SLACK_WEBHOOK_URL", True),
    ("discord", "bot_token", discord_bot, "DISCORD_BOT_TOKEN", False),
    ("discord", "webhook_url", discord_webhook, "DISCORD_WEBHOOK", True),
    ("telegram", "bot_token", two("{}:AA{}", (DG, 10), (URL64, 33)), "TELEGRAM_BOT_TOKEN", True),
    ("teams", "webhook_url", teams_webhook, "TEAMS_WEBHOOK_URL", True),
    ("twilio", "auth_token", kw(HEX, 32), "TWILIO_AUTH_TOKEN", False),
    ("twilio", "api_key_sid", p("SK", HEX, 32), "TWILIO_API_KEY", True),
    ("sendgrid", "api_key", two("SG.{}.{}", (URL64, 22), (URL64, 43)), "SENDGRID_API_KEY", True),
    ("mailgun", "api_key", p("key-", HEX, 32), "MAILGUN_API_KEY", True),
    ("mailgun", "api_key_v2", two("{}-{}-{}", (HEX, 32), (HEX, 8), (HEX, 8)), "MAILGUN_API_KEY",
     False),
    ("postmark", "server_token", uuid, "POSTMARK_SERVER_TOKEN", False),
    ("mailchimp", "api_key", two("{}-us{}", (HEX, 32), (DG, 2)), "MAILCHIMP_API_KEY", True),
    ("brevo", "api_key", two("xkeysib-{}-{}", (HEX, 64), (AN, 16)), "BREVO_API_KEY", True),
    ("resend", "api_key", p("re_", AN, 32), "RESEND_API_KEY", True),
    ("vonage", "api_secret", kw(AN, 16), "VONAGE_API_SECRET", False),
    ("pusher", "app_secret", kw(HEX, 20), "PUSHER_APP_SECRET", False),
    ("mattermost", "access_token", kw(LO + DG, 26), "MATTERMOST_TOKEN", False),
    ("firebase", "fcm_server_key", fcm, "FCM_SERVER_KEY", True),
    # --- observability
    ("datadog", "api_key", kw(HEX, 32), "DD_API_KEY", False),
    ("datadog", "app_key", kw(HEX, 40), "DD_APP_KEY", False),
    ("newrelic", "user_api_key", p("NRAK-", UP + DG, 27), "NEW_RELIC_API_KEY", True),
    ("newrelic", "insert_key", p("NRII-", URL64, 32), "NEW_RELIC_INSERT_KEY", True),
    ("newrelic", "license_key", p("", HEX, 36, "NRAL"), "NEW_RELIC_LICENSE_KEY", True),
    ("newrelic", "browser_key", p("NRJS-", HEX, 19), "NEW_RELIC_BROWSER_KEY", True),
    ("sentry", "org_auth_token", sentry_org, "SENTRY_AUTH_TOKEN", True),
    ("sentry", "user_auth_token", p("sntryu_", HEX, 64), "SENTRY_AUTH_TOKEN", True),
    ("grafana", "cloud_token", grafana_cloud, "GRAFANA_CLOUD_TOKEN", True),
    ("grafana", "service_account_token", two("glsa_{}_{}", (AN, 32), (HEX, 8)),
     "GRAFANA_SA_TOKEN", True),
    ("grafana", "legacy_api_key", grafana_legacy, "GRAFANA_API_KEY", True),
    ("pagerduty", "api_key", p("u+", URL64, 18), "PAGERDUTY_TOKEN", True),
    ("dynatrace", "api_token", two("dt0c01.{}.{}", (UP + DG, 24), (UP + DG, 64)), "DT_API_TOKEN",
     True),
    ("honeycomb", "api_key", kw(AN, 22), "HONEYCOMB_API_KEY", False),
    ("splunk", "hec_token", uuid, "SPLUNK_HEC_TOKEN", False),
    ("rollbar", "access_token", kw(HEX, 32), "ROLLBAR_ACCESS_TOKEN", False),
    ("bugsnag", "api_key", kw(HEX, 32), "BUGSNAG_API_KEY", False),
    ("launchdarkly", "sdk_key", lambda g: "sdk-" + uuid(g), "LAUNCHDARKLY_SDK_KEY", True),
    ("launchdarkly", "api_key", lambda g: "api-" + uuid(g), "LD_API_KEY", True),
    ("axiom", "api_token", lambda g: "xaat-" + uuid(g), "AXIOM_TOKEN", True),
    ("logzio", "shipping_token", kw(AN, 32), "LOGZIO_TOKEN", False),
    # --- AI
    ("openai", "project_key", two("sk-proj-{}T3BlbkFJ{}", (URL64, 74), (URL64, 74)),
     "OPENAI_API_KEY", True),
    ("openai", "legacy_key", two("sk-{}T3BlbkFJ{}", (AN, 20), (AN, 20)), "OPENAI_API_KEY", True),
    ("openai", "service_account_key", two("sk-svcacct-{}T3BlbkFJ{}", (URL64, 74), (URL64, 74)),
     "OPENAI_API_KEY", True),
    ("openai", "admin_key", two("sk-admin-{}T3BlbkFJ{}", (URL64, 74), (URL64, 74)),
     "OPENAI_ADMIN_KEY", True),
    ("anthropic", "api_key", p("sk-ant-api03-", URL64, 93, "AA"), "ANTHROPIC_API_KEY", True),
    ("anthropic", "admin_key", p("sk-ant-admin01-", URL64, 93, "AA"), "ANTHROPIC_ADMIN_KEY", True),
    ("huggingface", "user_token", p("hf_", UP + LO, 34), "HF_TOKEN", True),
    ("huggingface", "org_token", p("api_org_", UP + LO, 34), "HF_ORG_TOKEN", True),
    ("groq", "api_key", p("gsk_", AN, 52), "GROQ_API_KEY", True),
    ("perplexity", "api_key", p("pplx-", AN, 48), "PERPLEXITY_API_KEY", True),
    ("xai", "api_key", p("xai-", AN, 80), "XAI_API_KEY", True),
    ("replicate", "api_token", p("r8_", AN, 37), "REPLICATE_API_TOKEN", True),
    ("openrouter", "api_key", p("sk-or-v1-", HEX, 64), "OPENROUTER_API_KEY", True),
    ("langsmith", "personal_key", two("lsv2_pt_{}_{}", (HEX, 32), (HEX, 10)), "LANGSMITH_API_KEY",
     True),
    ("langsmith", "service_key", two("lsv2_sk_{}_{}", (HEX, 32), (HEX, 10)), "LANGSMITH_API_KEY",
     True),
    ("pinecone", "api_key", p("pcsk_", AN, 70), "PINECONE_API_KEY", True),
    ("cohere", "api_key", kw(AN, 40), "COHERE_API_KEY", False),
    ("mistral", "api_key", kw(AN, 32), "MISTRAL_API_KEY", False),
    ("deepseek", "api_key", p("sk-", HEX, 32), "DEEPSEEK_API_KEY", False),
    ("elevenlabs", "api_key", p("sk_", HEX, 48), "ELEVENLABS_API_KEY", False),
    ("wandb", "api_key", kw(HEX, 40), "WANDB_API_KEY", False),
    ("together", "api_key", kw(HEX, 64), "TOGETHER_API_KEY", False),
    ("assemblyai", "api_key", kw(HEX, 32), "ASSEMBLYAI_API_KEY", False),
    ("azure_openai", "api_key", kw(HEX, 32), "AZURE_OPENAI_API_KEY", False),
    ("google_gemini", "api_key", p("AIza", URL64, 35), "GEMINI_API_KEY", True),
    ("prefect", "api_key", p("pnu_", AN, 36), "PREFECT_API_KEY", True),
    # --- SaaS
    ("shopify", "admin_access_token", p("shpat_", HEX, 32), "SHOPIFY_ACCESS_TOKEN", True),
    ("shopify", "custom_app_token", p("shpca_", HEX, 32), "SHOPIFY_TOKEN", True),
    ("shopify", "private_app_password", p("shppa_", HEX, 32), "SHOPIFY_PASSWORD", True),
    ("shopify", "shared_secret", p("shpss_", HEX, 32), "SHOPIFY_SHARED_SECRET", True),
    ("atlassian", "api_token", atlassian, "JIRA_API_TOKEN", True),
    ("notion", "integration_secret", p("secret_", AN, 43), "NOTION_TOKEN", True),
    ("notion", "integration_token", two("ntn_{}{}", (DG, 11), (AN, 35)), "NOTION_TOKEN", True),
    ("airtable", "personal_token", two("pat{}.{}", (AN, 14), (HEX, 64)), "AIRTABLE_TOKEN", True),
    ("asana", "personal_token", two("2/{}/{}:{}", (DG, 16), (DG, 16), (HEX, 32)), "ASANA_TOKEN",
     True),
    ("zendesk", "api_token", kw(AN, 40), "ZENDESK_API_TOKEN", False),
    ("hubspot", "private_app_token", lambda g: "pat-na1-" + uuid(g), "HUBSPOT_ACCESS_TOKEN", True),
    ("mapbox", "secret_token", mapbox_secret, "MAPBOX_SECRET_TOKEN", True),
    ("algolia", "admin_api_key", kw(HEX, 32), "ALGOLIA_ADMIN_KEY", False),
    ("cloudinary", "url", cloudinary, "CLOUDINARY_URL", True),
    ("contentful", "management_token", p("CFPAT-", URL64, 43), "CONTENTFUL_MANAGEMENT_TOKEN",
     True),
    ("dropbox", "access_token", p("sl.", URL64, 135), "DROPBOX_TOKEN", True),
    ("box", "developer_token", kw(AN, 32), "BOX_DEVELOPER_TOKEN", False),
    ("linear", "api_key", p("lin_api_", AN, 40), "LINEAR_API_KEY", True),
    ("figma", "personal_token", p("figd_", URL64, 40), "FIGMA_TOKEN", True),
    ("databricks", "pat", p("dapi", HEX, 32), "DATABRICKS_TOKEN", True),
    ("supabase", "access_token", p("sbp_", HEX, 40), "SUPABASE_ACCESS_TOKEN", True),
    ("supabase", "secret_key", p("sb_secret_", URL64, 31), "SUPABASE_SECRET_KEY", True),
    ("supabase", "service_role_jwt", lambda g: jwt(g, {"iss": "supabase", "ref": r(g, LO, 20),
                                                       "role": "service_role", "iat": 1764000000,
                                                       "exp": 2079600000}),
     "SUPABASE_SERVICE_ROLE_KEY", True),
    ("planetscale", "service_token", p("pscale_tkn_", URL64, 43), "PLANETSCALE_TOKEN", True),
    ("planetscale", "password", p("pscale_pw_", URL64, 43), "DATABASE_PASSWORD", True),
    ("planetscale", "oauth_token", p("pscale_oauth_", URL64, 43), "PLANETSCALE_OAUTH", True),
    ("okta", "api_token", p("00", URL64, 40), "OKTA_API_TOKEN", False),
    ("auth0", "client_secret", kw(URL64, 64), "AUTH0_CLIENT_SECRET", False),
    ("typeform", "personal_token", two("tfp_{}_{}", (URL64, 44), (URL64, 14)), "TYPEFORM_TOKEN",
     True),
    ("clickup", "personal_token", two("pk_{}_{}", (DG, 8), (UP + DG, 32)), "CLICKUP_TOKEN", True),
    ("trello", "api_token", kw(HEX, 64), "TRELLO_TOKEN", False),
    ("readme", "api_key", p("rdme_", LO + DG, 70), "README_API_KEY", True),
    ("frameio", "developer_token", p("fio-u-", URL64, 64), "FRAMEIO_TOKEN", True),
    ("adafruit", "io_key", p("aio_", AN, 28), "ADAFRUIT_IO_KEY", True),
    ("twitter", "bearer_token", twitter_bearer, "TWITTER_BEARER_TOKEN", True),
    ("facebook", "access_token", fb_token, "FB_ACCESS_TOKEN", True),
    ("zoom", "client_secret", kw(AN, 32), "ZOOM_CLIENT_SECRET", False),
    ("intercom", "access_token", lambda g: "dG9rOj" + r(g, AN, 54) + "=", "INTERCOM_TOKEN", True),
    ("segment", "write_key", kw(AN, 32), "SEGMENT_WRITE_KEY", False),
    ("webflow", "api_token", kw(HEX, 64), "WEBFLOW_API_TOKEN", False),
    ("neon", "api_key", p("napi_", LO + DG, 64), "NEON_API_KEY", True),
    ("upstash", "redis_token", lambda g: "AX" + r(g, URL64, 58) + "=", "UPSTASH_REDIS_REST_TOKEN",
     False),
    ("mongodb_atlas", "private_key", uuid, "MONGODB_ATLAS_PRIVATE_KEY", False),
    ("snowflake", "password", lambda g: pw(g, 20), "SNOWFLAKE_PASSWORD", False),
    ("clerk", "secret_key", p("sk_live_", AN, 50), "CLERK_SECRET_KEY", True),
    ("stytch", "secret", lambda g: "secret-live-" + r(g, URL64, 36) + "=", "STYTCH_SECRET", True),
    ("confluent", "api_secret", kw(AN + "+/", 64), "CONFLUENT_API_SECRET", False),
    ("twitch", "client_secret", kw(LO + DG, 30), "TWITCH_CLIENT_SECRET", False),
    ("spotify", "client_secret", kw(HEX, 32), "SPOTIFY_CLIENT_SECRET", False),
    # --- connection strings with credentials
    ("postgres", "connection_url", conn("postgres", 5432), "DATABASE_URL", True),
    ("postgresql", "connection_url", conn("postgresql", 5432), "DATABASE_URL", True),
    ("mysql", "connection_url", conn("mysql", 3306), "MYSQL_URL", True),
    ("mongodb", "connection_url", conn("mongodb", 27017), "MONGO_URL", True),
    ("mongodb", "srv_url", mongo_srv, "MONGODB_URI", True),
    ("redis", "connection_url", redis_nouser, "REDIS_URL", True),
    ("rediss", "connection_url", conn("rediss", 6380, "/0"), "REDIS_URL", True),
    ("amqp", "connection_url", amqp, "AMQP_URL", True),
    ("mssql", "connection_url", conn("mssql", 1433), "MSSQL_URL", True),
    ("mssql", "ado_connection_string", mssql_ado, "SQLSERVER_CONNECTION", True),
    ("odbc", "connection_string", odbc, "ODBC_CONNECTION", True),
    ("jdbc", "postgres_url", jdbc, "JDBC_URL", True),
    ("jdbc", "mysql_url", jdbc_mysql, "JDBC_URL", True),
    ("ftp", "url", ftp_url, "FTP_URL", True),
    ("ftps", "url", conn("ftps", 990, "/upload"), "FTP_URL", True),
    ("ssh", "url", ssh_url, "SSH_URL", True),
    ("https", "basic_auth_url", https_basic, "GIT_REMOTE", True),
    ("http", "basic_auth_url", conn("http", 8080, "/api"), "API_URL", True),
    # --- keys and tokens without a vendor
    ("private_key", "rsa_pem", lambda g: pem(g, "RSA PRIVATE KEY", 900), "TLS_KEY", True),
    ("private_key", "ec_pem", lambda g: pem(g, "EC PRIVATE KEY", 120), "EC_KEY", True),
    ("private_key", "pkcs8_pem", lambda g: pem(g, "PRIVATE KEY", 900), "PRIVATE_KEY", True),
    ("private_key", "encrypted_pkcs8", lambda g: pem(g, "ENCRYPTED PRIVATE KEY", 900), "KEY", True),
    ("private_key", "dsa_pem", lambda g: pem(g, "DSA PRIVATE KEY", 440), "DSA_KEY", True),
    ("private_key", "openssh", openssh_key, "SSH_PRIVATE_KEY", True),
    ("private_key", "pgp_block", pgp_key, "GPG_PRIVATE_KEY", True),
    ("crypto_wallet", "secp256k1_hex", kw(HEX, 64), "WALLET_PRIVATE_KEY", False),
    ("crypto_wallet", "wif_uncompressed", lambda g: wif(g, False), "BTC_WIF", True),
    ("crypto_wallet", "wif_compressed", lambda g: wif(g, True), "BTC_WIF", True),
    ("jwt", "signed_token", jwt, "ACCESS_TOKEN", True),
    ("generic", "password_assignment", lambda g: pw(g, 18), "DB_PASSWORD", False),
    ("generic", "api_key_assignment", kw(AN, 32), "API_KEY", False),
    ("generic", "secret_assignment", kw(URL64, 40), "CLIENT_SECRET", False),
    ("generic", "auth_token_assignment", kw(HEX, 48), "AUTH_TOKEN", False),
]
