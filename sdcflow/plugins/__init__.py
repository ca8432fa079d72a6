"""The plugin API: what a method or measure is written against.

* :mod:`sdcflow.plugins.registry`: the :class:`~sdcflow.plugins.registry.Method` and
  :class:`~sdcflow.plugins.registry.Measure` base classes, ``@register`` and the lookup
  the engine uses (built-ins and the ``sdcflow.methods`` entry-point group);
* :mod:`sdcflow.plugins.results`: the shapes of a measure's summary;
* :mod:`sdcflow.plugins.distribution`: how a plugin runs on partitioned data;
* :mod:`sdcflow.plugins.limits`: bounds on what a parameter may make a step allocate;
* :mod:`sdcflow.plugins.plain_words`: figures and lists in words, for ``explain``;
* :mod:`sdcflow.plugins.testing`: :func:`~sdcflow.plugins.testing.check_method` and
  friends, the conformance suite a plugin author runs in their tests.

The plugins themselves live in :mod:`sdcflow.methods` and :mod:`sdcflow.measures`, their
numerical kernels in :mod:`sdcflow.kernels` (see ``docs/architecture.md``). This package
imports nothing on its own, so that importing one of its modules stays cheap and never
runs the registry's discovery.
"""
