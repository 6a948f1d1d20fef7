"""Server-side mode: the Jupyter server itself clones from S3 and publishes to it.

Off by default (the browser reaches S3 with the user's credentials). An administrator turns it
on with ``c.Bookshelf.server_access = True``; then ``POST /api/bookshelf/clone`` and
``PUT /api/bookshelf/published/{path}`` work for scripts, kernels, papermill and CI, with the
server's own AWS credentials (the standard chain) and the Bookshelf settings in effect.

- ``config``: the ``Bookshelf`` configurable and the S3 settings taken from the settings.
- ``s3``: the boto3 client and what S3's errors mean, as ``BookshelfError``.
- ``notebook``: the content rules shared with the browser (nbformat check, size limit).
- ``clone``, ``publish``: the two operations.
"""

from .config import Bookshelf, S3Settings

__all__ = ["Bookshelf", "S3Settings"]
