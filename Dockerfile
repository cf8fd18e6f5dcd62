# The sixnimmt web game (used by compose.yaml; see docs/deploy.md).
FROM python:3.11-slim
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY sixnimmt ./sixnimmt
RUN pip install --no-cache-dir ".[postgres]"
RUN useradd --create-home sixnimmt
USER sixnimmt
EXPOSE 8000
CMD ["sixnimmt", "serve", "--host=0.0.0.0", "--port=8000"]
