"""Reading the state by the batch rules, as :meth:`LabelStudioProject.load` reads a pull."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import msgspec

from ..adapters.label_studio.export import parse_tasks
from ..adapters.label_studio.label_config import Control, declare, parse_label_config
from ..adapters.label_studio.project import LabelStudioProject
from ..model import Dataset
from .state import State


@dataclass(frozen=True)
class Reader:
    """Reads the state's tasks into a :class:`Dataset`: ``where`` names the project in
    messages; ``names``: annotator display names; ``controls``: the labeling config's."""

    where: str = "the project (not connected)"
    skip_invalid: bool = False
    names: dict[str, str] = field(default_factory=dict)
    controls: list[Control] = field(default_factory=list)

    def connect(self, project: LabelStudioProject) -> Reader:
        """This reader of ``project``, resolved; its labeling config and user names read (as
        a batch pull reads them)."""
        project_id = project.resolve()
        names = project.annotator_names()
        controls = []
        if project.label_config:
            where = f"{project.where} labeling config"
            controls = parse_label_config(project.label_config, where)
        where = f"{project.url} project {project_id}"
        return replace(self, where=where, names=names, controls=controls)

    def read(self, state: State, ids: list[int] | None = None) -> Dataset:
        """The state (or the tasks ``ids`` of it) read by the batch rules."""
        docs = [msgspec.Raw(d) for d in state.task_documents(ids)]
        dataset = parse_tasks(docs, self.where, skip_invalid=self.skip_invalid, live=True)
        dataset.annotator_names = {**self.names, **dataset.annotator_names}
        if self.controls:
            declare(dataset, self.controls)
        return dataset
